import { arrayMember, isRecord, type JsonObject, recordMember } from '../../json/json.js';

/** One choice's calls: the call open at each upstream index, the calls by id, the last one, how many. */
interface ChoiceCalls {
  open: Map<number, { id: string | undefined; at: number }>;
  byId: Map<string, number>;
  last: number | undefined;
  next: number;
}

/**
 * Streamed tool-call indexes as clients key them. Some OpenAI-compatible servers (Ollama) stream every call
 * of a parallel batch at `index: 0`, each with its own `id`: clients and the gateway's translators assemble
 * calls by index, and would join them into one call with the arguments run together. A delta whose `id`
 * differs from the id of the call open at its index starts a new call; a delta without an id, or with the
 * same one (vLLM repeats it), continues the call. Older Ollama builds send no `index` at all, which the
 * `openai` SDK files under `undefined` and drops (its `finalChatCompletion()` answered `tool_calls: []`):
 * such a delta continues the call of its id, else the last call, and starts one when its id is new. Each
 * choice's calls are numbered in the order they start, so that a standard stream (indexes 0, 1, … in order)
 * keeps its own. A function call whose opening delta has no `type` (vLLM's, with a named `tool_choice`; or a
 * delta with the id alone, the name coming later) gets `"type": "function"` there, as OpenAI sends it: the
 * `openai` SDK's `finalChatCompletion()` throws on a call without one.
 */
export class CallIndexes {
  /** Calls started, in every choice. */
  #started = 0;
  /** Per choice index; made by the first call (every stream has a reader, few have calls). */
  #choices: Map<number, ChoiceCalls> | undefined;

  /** `choices` with the indexes clients should see; `choices` itself when every index stays. */
  read(choices: unknown[]): unknown[] {
    let changed: unknown[] | undefined;
    for (let i = 0; i < choices.length; i++) {
      const choice = choices[i];
      const delta = recordMember(choice, 'delta');
      const entries = arrayMember(delta, 'tool_calls');
      if (!isRecord(choice) || !delta || !entries) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      const toolCalls = this.#renumbered(this.#choice(index), entries);
      if (toolCalls === entries) continue;
      changed ??= [...choices];
      changed[i] = { ...choice, delta: { ...delta, tool_calls: toolCalls } } satisfies JsonObject;
    }
    return changed ?? choices;
  }

  #choice(index: number): ChoiceCalls {
    this.#choices ??= new Map();
    let choice = this.#choices.get(index);
    if (!choice) {
      choice = { open: new Map(), byId: new Map(), last: undefined, next: 0 };
      this.#choices.set(index, choice);
    }
    return choice;
  }

  #renumbered(choice: ChoiceCalls, entries: unknown[]): unknown[] {
    let changed: unknown[] | undefined;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (!isRecord(entry)) continue;
      const before = this.#started;
      const id = typeof entry.id === 'string' && entry.id !== '' ? entry.id : undefined;
      const at =
        typeof entry.index === 'number'
          ? this.#atIndex(choice, entry.index, id)
          : this.#unindexed(choice, id);
      // A custom call says so in its `custom` member; any other call is a function call.
      const untyped = this.#started > before && entry.type === undefined && entry.custom === undefined;
      if (at === entry.index && !untyped) continue;
      changed ??= [...entries];
      changed[i] = untyped ? { ...entry, index: at, type: 'function' } : { ...entry, index: at };
    }
    return changed ?? entries;
  }

  /** The index clients see for a delta the upstream sent at `index`. */
  #atIndex(choice: ChoiceCalls, index: number, id: string | undefined): number {
    const open = choice.open.get(index);
    if (!open || (id !== undefined && open.id !== undefined && open.id !== id)) {
      const at = this.#start(choice, id);
      choice.open.set(index, { id, at });
      return at;
    }
    if (open.id === undefined && id !== undefined) {
      open.id = id;
      choice.byId.set(id, open.at);
    }
    choice.last = open.at;
    return open.at;
  }

  /** The index clients see for a delta the upstream sent without one. */
  #unindexed(choice: ChoiceCalls, id: string | undefined): number {
    const known = id === undefined ? choice.last : choice.byId.get(id);
    if (known === undefined) return this.#start(choice, id);
    choice.last = known;
    return known;
  }

  /** A new call of `choice`; counted in `#started`. */
  #start(choice: ChoiceCalls, id: string | undefined): number {
    this.#started++;
    const at = choice.next++;
    if (id !== undefined) choice.byId.set(id, at);
    choice.last = at;
    return at;
  }
}
