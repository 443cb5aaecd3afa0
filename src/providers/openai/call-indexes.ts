import { arrayMember, isRecord, type JsonObject, recordMember } from '../../json/json.js';

/**
 * Streamed tool-call indexes as clients key them. Some OpenAI-compatible servers (Ollama) stream every call
 * of a parallel batch at `index: 0`, each with its own `id`: clients and the gateway's translators assemble
 * calls by index, and would join them into one call with the arguments run together. A delta whose `id`
 * differs from the id of the call open at its index starts a new call; a delta without an id, or with the
 * same one (vLLM repeats it), continues the call. Each choice's calls are numbered in the order they start,
 * so that a standard stream (indexes 0, 1, … in order) keeps its own. A function call whose opening delta
 * has no `type` (vLLM's, with a named `tool_choice`) gets `"type": "function"` there, as OpenAI sends it: the
 * `openai` SDK's `finalChatCompletion()` throws on a call without one.
 */
export class CallIndexes {
  /** Per choice index: the call open at each upstream index, and how many calls started. */
  /** Calls started, in every choice. */
  #started = 0;
  readonly #choices = new Map<
    number,
    { open: Map<number, { id: string | undefined; at: number }>; next: number }
  >();

  /** `choices` with the indexes clients should see; `choices` itself when every index stays. */
  read(choices: unknown[]): unknown[] {
    let changed: unknown[] | undefined;
    for (let i = 0; i < choices.length; i++) {
      const choice = choices[i];
      const delta = recordMember(choice, 'delta');
      const entries = arrayMember(delta, 'tool_calls');
      if (!isRecord(choice) || !delta || !entries) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      const toolCalls = this.#renumbered(index, entries);
      if (toolCalls === entries) continue;
      changed ??= [...choices];
      changed[i] = { ...choice, delta: { ...delta, tool_calls: toolCalls } } satisfies JsonObject;
    }
    return changed ?? choices;
  }

  #renumbered(choiceIndex: number, entries: unknown[]): unknown[] {
    let changed: unknown[] | undefined;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (!isRecord(entry) || typeof entry.index !== 'number') continue;
      const before = this.#started;
      const at = this.#callIndex(choiceIndex, entry.index, entry.id);
      const untyped = this.#started > before && entry.type === undefined && isRecord(entry.function);
      if (at === entry.index && !untyped) continue;
      changed ??= [...entries];
      changed[i] = untyped ? { ...entry, index: at, type: 'function' } : { ...entry, index: at };
    }
    return changed ?? entries;
  }

  /** The index clients see for a delta at `index` with `id`; a delta that starts a call counts in `#started`. */
  #callIndex(choiceIndex: number, index: number, id: unknown): number {
    let choice = this.#choices.get(choiceIndex);
    if (!choice) {
      choice = { open: new Map(), next: 0 };
      this.#choices.set(choiceIndex, choice);
    }
    const named = typeof id === 'string' && id !== '' ? id : undefined;
    const open = choice.open.get(index);
    if (open && (named === undefined || open.id === undefined || open.id === named)) {
      open.id ??= named;
      return open.at;
    }
    this.#started++;
    const at = choice.next++;
    choice.open.set(index, { id: named, at });
    return at;
  }
}
