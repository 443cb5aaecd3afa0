import { randomUUID } from 'node:crypto';
import { isBlankArguments, NO_ARGUMENTS } from '../../codecs/shared/tool-arguments.js';
import { arrayMember, isRecord, type JsonObject, recordMember } from '../../json/json.js';

/**
 * Function calls of OpenAI-compatible servers that carry no argument text (`"arguments": ""`, or blanks, as
 * many send for a tool without parameters) get OpenAI's own `{}` before they reach any client: in a chat
 * completion's message, and in a stream by the choice's finish (see `StreamedArguments`). Custom tool calls
 * (`custom.input`, free text) are left as they are.
 */

/**
 * The choices with `{}` for every function call without argument text (and an arguments object, as a server
 * may send one, as its JSON text), `"type": "function"` where a function call has no type (as a stream's
 * calls get it, see call-indexes.ts), and an id of its own (`call_…`, as the Responses ingress gives) where it
 * has none: a client must send the call's id back with its result. `choices` itself when no call lacks any.
 */
export function choicesWithArguments(choices: unknown[]): unknown[] {
  let changed: unknown[] | undefined;
  for (let i = 0; i < choices.length; i++) {
    const choice = choices[i];
    const message = recordMember(choice, 'message');
    const calls = arrayMember(message, 'tool_calls');
    if (!isRecord(choice) || !message || !calls?.some(needsMending)) continue;
    changed ??= [...choices];
    const toolCalls = calls.map((call) => (needsMending(call) ? mended(call) : call));
    changed[i] = { ...choice, message: { ...message, tool_calls: toolCalls } } satisfies JsonObject;
  }
  return changed ?? choices;
}

/** A function call whose `arguments` are not text (absent, null, an object) or blank. */
function lacksText(call: unknown): call is JsonObject {
  const fn = recordMember(call, 'function');
  return fn !== undefined && (typeof fn.arguments !== 'string' || isBlankArguments(fn.arguments));
}

/** A function call without argument text, a type or an id. */
function needsMending(call: unknown): call is JsonObject {
  if (lacksText(call)) return true;
  return isRecord(call) && isRecord(call.function) && (call.type === undefined || call.id === undefined);
}

function mended(call: JsonObject): JsonObject {
  const typed = {
    ...call,
    id: call.id ?? `call_${randomUUID().replaceAll('-', '')}`,
    type: call.type ?? 'function',
  };
  if (!lacksText(call)) return typed;
  const fn = recordMember(call, 'function');
  const args = isRecord(fn?.arguments) ? JSON.stringify(fn.arguments) : NO_ARGUMENTS;
  return { ...typed, function: { ...fn, arguments: args } };
}

/** A chunk's choices, and the choices of a chunk to send before it (the `{}` of calls it does not carry). */
export interface ArgumentsReading {
  choices: unknown[];
  before: JsonObject[] | undefined;
}

/**
 * One stream's function calls, by choice and call `index` (the standard; a call sent without one is not
 * followed): whether any argument text came. When a choice finishes, each of its calls that got none (or only
 * blanks) gets `{}` appended: in the finishing chunk's own delta of that call when it carries one (a call
 * opened and finished in one chunk), else in a chunk of its own just before it, so that clients that assemble
 * the fragments (the `openai` SDK's stream helpers, for one) get JSON they can parse.
 */
export class StreamedArguments {
  /** Per choice index, per call index: true once the call got argument text that is not blank. */
  readonly #calls = new Map<number, Map<number, boolean>>();

  /** Notes a chunk's calls; answers its choices (with `{}` given where a choice finishes) and what precedes. */
  read(choices: unknown[]): ArgumentsReading {
    let changed: unknown[] | undefined;
    let before: JsonObject[] | undefined;
    for (let i = 0; i < choices.length; i++) {
      const given = choices[i];
      if (!isRecord(given)) continue;
      let choice = given;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      let deltaCalls = arrayMember(recordMember(choice, 'delta'), 'tool_calls');
      if (deltaCalls) {
        const texted = argumentsAsText(deltaCalls);
        if (texted !== deltaCalls) {
          choice = { ...choice, delta: { ...recordMember(choice, 'delta'), tool_calls: texted } };
          changed ??= [...choices];
          changed[i] = choice;
          deltaCalls = texted;
        }
        this.#note(index, deltaCalls);
      }
      if (typeof choice.finish_reason !== 'string') continue;
      const blank = this.#blankCalls(index);
      this.#calls.delete(index);
      if (blank.length === 0) continue;
      const carried = blank.filter((call) => deltaCalls?.some((entry) => callIndex(entry) === call));
      if (carried.length > 0) {
        changed ??= [...choices];
        changed[i] = withArgumentsIn(choice, deltaCalls ?? [], carried);
      }
      const apart = blank.filter((call) => !carried.includes(call));
      if (apart.length === 0) continue;
      before ??= [];
      before.push(noArgumentsChoice(index, apart));
    }
    return { choices: changed ?? choices, before };
  }

  /** The choices of a chunk giving `{}` to every call still without argument text (a stream that never finished a choice). */
  pending(): JsonObject[] {
    const choices: JsonObject[] = [];
    for (const index of this.#calls.keys()) {
      const blank = this.#blankCalls(index);
      if (blank.length > 0) choices.push(noArgumentsChoice(index, blank));
    }
    this.#calls.clear();
    return choices;
  }

  #note(choice: number, entries: unknown[]): void {
    for (const entry of entries) {
      const index = callIndex(entry);
      const fn = recordMember(entry, 'function');
      if (index === undefined || !fn) continue;
      let calls = this.#calls.get(choice);
      if (!calls) {
        calls = new Map();
        this.#calls.set(choice, calls);
      }
      // An arguments object (not text, but not nothing either) is left to the client as it came.
      const text =
        (typeof fn.arguments === 'string' && !isBlankArguments(fn.arguments)) || isRecord(fn.arguments);
      calls.set(index, text || calls.get(index) === true);
    }
  }

  #blankCalls(choice: number): number[] {
    const blank: number[] = [];
    for (const [index, text] of this.#calls.get(choice) ?? []) if (!text) blank.push(index);
    return blank;
  }
}

/**
 * Deltas whose arguments came as an object (not text, as some servers send them) with its JSON text, as in a
 * plain answer: chat clients join the fragments as strings (the `openai` SDK made `[object Object]` of one).
 */
function argumentsAsText(entries: unknown[]): unknown[] {
  let changed: unknown[] | undefined;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const fn = recordMember(entry, 'function');
    if (!isRecord(entry) || !fn || !isRecord(fn.arguments)) continue;
    changed ??= [...entries];
    changed[i] = { ...entry, function: { ...fn, arguments: JSON.stringify(fn.arguments) } };
  }
  return changed ?? entries;
}

function callIndex(entry: unknown): number | undefined {
  return isRecord(entry) && typeof entry.index === 'number' ? entry.index : undefined;
}

/** `choice` whose delta gives the calls `carried` `{}` after whatever blank text this delta has for them. */
function withArgumentsIn(choice: JsonObject, entries: unknown[], carried: number[]): JsonObject {
  const owed = new Set(carried);
  const toolCalls = entries.map((entry) => {
    const index = callIndex(entry);
    if (!isRecord(entry) || index === undefined || !owed.delete(index)) return entry;
    const fn = recordMember(entry, 'function');
    const blank = typeof fn?.arguments === 'string' ? fn.arguments : '';
    return { ...entry, function: { ...fn, arguments: blank + NO_ARGUMENTS } };
  });
  return { ...choice, delta: { ...recordMember(choice, 'delta'), tool_calls: toolCalls } };
}

function noArgumentsChoice(index: number, calls: number[]): JsonObject {
  const toolCalls = calls.map((call) => ({ index: call, function: { arguments: NO_ARGUMENTS } }));
  return { index, delta: { tool_calls: toolCalls }, finish_reason: null };
}
