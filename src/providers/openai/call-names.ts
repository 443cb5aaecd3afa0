import { isBlankArguments } from '../../codecs/shared/tool-arguments.js';
import { arrayMember, isRecord, type JsonObject, recordMember } from '../../json/json.js';

/** One choice's calls: the opening entry held while its name may still grow, and the names sent. */
interface ChoiceNames {
  held: Map<number, JsonObject>;
  sent: Map<number, string>;
}

/** A chunk's choices, and the choices of a chunk to send before it (calls whose name is now whole). */
export interface NamesReading {
  choices: unknown[];
  before: JsonObject[] | undefined;
}

/**
 * Function names that arrive split over several deltas. OpenAI sends a call's whole `function.name` in its
 * opening delta and clients rely on that: the `openai` SDK keeps the last fragment, the Responses and
 * Messages translators announce a call with the name they have, the AI SDK the first. Some OpenAI-compatible
 * servers send the name in pieces (`"get_"`, then `"weather"`), or repeat it on later deltas. So a call's
 * opening delta is held (only until the call's first argument text, another call, the choice's finish or the
 * stream's end: one chunk, for a standard stream), name fragments that follow are joined onto it, and it goes
 * on with the whole name, as the entry just before that first argument text in its delta (else in a chunk of
 * its own: so the number of chunks stays the upstream's); a later delta that repeats the name sent (or a
 * start of it) loses its `name`. A fragment that starts with the name gathered so far is taken as the name so
 * far repeated or grown (so `"ab"` after `"a"` reads as `"ab"`, not `"aab"`). Runs after call-indexes.ts, so
 * every call has its index.
 */
export class CallNames {
  /** Per choice index; made by the first call (every stream has a reader, few have calls). */
  #choices: Map<number, ChoiceNames> | undefined;

  /** `choices` with held openings taken out and released ones before them; `choices` itself when none. */
  read(choices: unknown[]): NamesReading {
    let changed: unknown[] | undefined;
    let before: JsonObject[] | undefined;
    for (let i = 0; i < choices.length; i++) {
      const choice = choices[i];
      if (!isRecord(choice)) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      const delta = recordMember(choice, 'delta');
      const entries = arrayMember(delta, 'tool_calls');
      const names = this.#choices?.get(index);
      if (!entries && !(names && names.held.size > 0 && typeof choice.finish_reason === 'string')) continue;
      const state = names ?? this.#choice(index);
      const released: JsonObject[] = [];
      const kept = entries ? this.#entries(state, entries, released) : undefined;
      if (typeof choice.finish_reason === 'string') release(state, [...state.held.keys()], released);
      if (released.length > 0) {
        before ??= [];
        before.push({ index, delta: { tool_calls: released }, finish_reason: null });
      }
      if (kept === entries) continue;
      changed ??= [...choices];
      const { tool_calls: _calls, ...rest } = delta ?? {};
      changed[i] = { ...choice, delta: kept && kept.length > 0 ? { ...rest, tool_calls: kept } : rest };
    }
    return { choices: changed ?? choices, before };
  }

  /** The openings still held (a stream that ended without finishing its choice), as choices to send. */
  pending(): JsonObject[] {
    const choices: JsonObject[] = [];
    for (const [index, state] of this.#choices ?? []) {
      const released: JsonObject[] = [];
      release(state, [...state.held.keys()], released);
      if (released.length > 0) choices.push({ index, delta: { tool_calls: released }, finish_reason: null });
    }
    return choices;
  }

  #choice(index: number): ChoiceNames {
    this.#choices ??= new Map();
    const state: ChoiceNames = { held: new Map(), sent: new Map() };
    this.#choices.set(index, state);
    return state;
  }

  /** The entries that go on in this chunk (`entries` itself when all do unchanged); releases into `released`. */
  #entries(state: ChoiceNames, entries: unknown[], released: JsonObject[]): unknown[] {
    let kept: unknown[] | undefined;
    const keep = (i: number, entry: JsonObject | undefined) => {
      kept ??= entries.slice(0, i);
      if (entry) kept.push(entry);
    };
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      const at = isRecord(entry) && typeof entry.index === 'number' ? entry.index : undefined;
      const fn = recordMember(entry, 'function');
      if (!isRecord(entry) || at === undefined || !fn) {
        // A delta of a held call with no function member (its id alone) joins the opening.
        const opening = isRecord(entry) && at !== undefined ? state.held.get(at) : undefined;
        if (opening && isRecord(entry)) {
          mergeOpening(opening, entry);
          keep(i, undefined);
        } else kept?.push(entry);
        continue;
      }
      const held = state.held.get(at);
      const sent = state.sent.get(at);
      const name = typeof fn.name === 'string' ? fn.name : undefined;
      if (held) {
        // Another call opened: the held ones are whole.
        release(
          state,
          [...state.held.keys()].filter((other) => other !== at),
          released,
        );
        if (name !== undefined) setName(held, joinName(nameOf(held), name));
        if (!hasText(fn.arguments)) {
          mergeOpening(held, entry);
          keep(i, undefined);
          continue;
        }
        state.held.delete(at);
        state.sent.set(at, nameOf(held));
        keep(i, held);
        keep(i, withoutName(entry, fn));
      } else if (sent !== undefined) {
        if (name !== undefined && sent.startsWith(name)) keep(i, withoutName(entry, fn));
        else kept?.push(entry);
      } else {
        release(state, [...state.held.keys()], released);
        if (hasText(fn.arguments)) {
          state.sent.set(at, name ?? '');
          kept?.push(entry);
        } else {
          state.held.set(at, { ...entry, function: { ...fn } });
          keep(i, undefined);
        }
      }
    }
    return kept ?? entries;
  }
}

/** Moves the held openings at `indexes` to `released`, in call order, noting their names as sent. */
function release(state: ChoiceNames, indexes: number[], released: JsonObject[]): void {
  for (const at of indexes.sort((a, b) => a - b)) {
    const held = state.held.get(at);
    if (!held) continue;
    state.held.delete(at);
    state.sent.set(at, nameOf(held));
    released.push(held);
  }
}

const hasText = (args: unknown): boolean =>
  (typeof args === 'string' && !isBlankArguments(args)) || isRecord(args);

function nameOf(entry: JsonObject): string {
  const name = recordMember(entry, 'function')?.name;
  return typeof name === 'string' ? name : '';
}

function setName(entry: JsonObject, name: string): void {
  entry.function = { ...recordMember(entry, 'function'), name };
}

/** A fragment that starts with the name so far repeats or grows it; any other is its next piece. */
const joinName = (gathered: string, fragment: string): string =>
  fragment.startsWith(gathered) ? fragment : gathered + fragment;

/** A later delta of a held call without argument text: its id, type and blank text join the opening. */
function mergeOpening(held: JsonObject, entry: JsonObject): void {
  for (const [key, value] of Object.entries(entry)) {
    if (key !== 'function' && key !== 'index' && held[key] === undefined) held[key] = value;
  }
  const fn = recordMember(entry, 'function');
  const heldFn = recordMember(held, 'function');
  if (heldFn && typeof fn?.arguments === 'string') {
    heldFn.arguments = (typeof heldFn.arguments === 'string' ? heldFn.arguments : '') + fn.arguments;
  }
}

function withoutName(entry: JsonObject, fn: JsonObject): JsonObject {
  const { name: _name, ...rest } = fn;
  return { ...entry, function: rest };
}
