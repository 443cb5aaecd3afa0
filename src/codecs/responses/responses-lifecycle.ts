import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';

/**
 * Keeps a Responses event stream's lifecycle in the order the schemas describe, whoever wrote it: a native
 * upstream that skips `response.created`, an item's `output_item.added`, a content part's
 * `content_part.added` (or a reasoning summary part's), or completes the response with items still open, gets
 * the missing events inserted. Events that already follow the lifecycle pass through alone and unchanged,
 * so the gateway's own translated streams are never altered.
 */
export type LifecycleRepair = (event: JsonObject) => JsonObject[];

interface ItemState {
  outputIndex: number;
  item: JsonObject;
  parts: Set<number>;
  partsDone: Set<number>;
  summaries: Set<number>;
  done: boolean;
}

const TEXT_EVENTS = new Set([
  'response.output_text.delta',
  'response.output_text.done',
  'response.output_text.annotation.added',
  'response.refusal.delta',
  'response.refusal.done',
  'response.content_part.done',
]);
const SUMMARY_EVENTS = new Set([
  'response.reasoning_summary_text.delta',
  'response.reasoning_summary_text.done',
  'response.reasoning_summary_part.done',
]);
/**
 * Terminal events that close what is open first. Not `response.failed`: a failure is an `error` event followed
 * at once by `response.failed` (contract §6), whose output lists what was done.
 */
const CLOSING = new Set(['response.completed', 'response.incomplete']);

/** The skeleton of an item first seen through one of its events. */
function skeletonItem(type: string, id: string): JsonObject {
  if (type.startsWith('response.function_call_arguments.'))
    return { type: 'function_call', id, call_id: id, name: '', arguments: '', status: 'in_progress' };
  if (type.startsWith('response.reasoning')) return { type: 'reasoning', id, summary: [] };
  return { type: 'message', id, role: 'assistant', status: 'in_progress', content: [] };
}

/** An item as it is announced: in progress, without the content that will stream. */
function asAdded(item: JsonObject): JsonObject {
  const added: JsonObject = { ...item };
  if ('status' in added || added.type !== 'reasoning') added.status = 'in_progress';
  if (Array.isArray(added.content)) added.content = [];
  if (added.type === 'reasoning') added.summary = [];
  if (added.type === 'function_call') added.arguments = '';
  return added;
}

const emptyPart = (type: string): JsonObject =>
  type.startsWith('response.refusal')
    ? { type: 'refusal', refusal: '' }
    : { type: 'output_text', text: '', annotations: [], logprobs: [] };

const indexOf = (event: JsonObject, key: string): number =>
  typeof event[key] === 'number' ? (event[key] as number) : 0;

/** A new repair for one stream. */
export function responsesLifecycle(): LifecycleRepair {
  const repairer = new LifecycleRepairer();
  return (event) => repairer.repair(event);
}

const newItem = (outputIndex: number, item: JsonObject): ItemState => ({
  outputIndex,
  item,
  parts: new Set(),
  partsDone: new Set(),
  summaries: new Set(),
  done: false,
});

/** One stream's lifecycle so far: whether the response was announced, and each item's parts. */
class LifecycleRepairer {
  #created = false;
  readonly #items = new Map<string, ItemState>();

  /** The event, after the events it needs first. */
  repair(event: JsonObject): JsonObject[] {
    const type = stringMember(event, 'type') ?? '';
    const out: JsonObject[] = [];
    if (!this.#created && type !== 'error') this.#announce(out, event, type);
    if (type === 'response.output_item.added' && isRecord(event.item) && typeof event.item.id === 'string') {
      this.#items.set(event.item.id, newItem(indexOf(event, 'output_index'), event.item));
    } else if (
      type === 'response.output_item.done' &&
      isRecord(event.item) &&
      typeof event.item.id === 'string'
    ) {
      const { id } = event.item;
      const state = this.#items.get(id) ?? this.#open(out, id, indexOf(event, 'output_index'), event.item);
      state.done = true;
    } else if (type === 'response.content_part.added') {
      this.#itemFor(out, event, type)?.parts.add(indexOf(event, 'content_index'));
    } else if (TEXT_EVENTS.has(type)) {
      this.#contentPart(out, event, type);
    } else if (type === 'response.reasoning_summary_part.added') {
      this.#itemFor(out, event, type)?.summaries.add(indexOf(event, 'summary_index'));
    } else if (SUMMARY_EVENTS.has(type)) {
      this.#summaryPart(out, event, type);
    } else if (type.startsWith('response.') && stringMember(event, 'item_id') !== undefined) {
      this.#itemFor(out, event, type);
    } else if (CLOSING.has(type)) {
      this.#closeAll(out, recordMember(event, 'response'));
    }
    out.push(event);
    return out;
  }

  /** `response.created`, made from the first event's response when the stream did not start with it. */
  #announce(out: JsonObject[], event: JsonObject, type: string): void {
    this.#created = true;
    if (type === 'response.created') return;
    const response = recordMember(event, 'response') ?? {};
    out.push({
      type: 'response.created',
      response: withMembers(response, { status: 'in_progress', output: [], usage: null }),
    });
  }

  #open(out: JsonObject[], id: string, outputIndex: number, item: JsonObject): ItemState {
    const state = newItem(outputIndex, item);
    this.#items.set(id, state);
    out.push({ type: 'response.output_item.added', output_index: outputIndex, item: asAdded(item) });
    return state;
  }

  #itemFor(out: JsonObject[], event: JsonObject, type: string): ItemState | undefined {
    const id = stringMember(event, 'item_id');
    if (id === undefined) return undefined;
    return this.#items.get(id) ?? this.#open(out, id, indexOf(event, 'output_index'), skeletonItem(type, id));
  }

  /** A text or refusal event: its content part is announced first if it was not. */
  #contentPart(out: JsonObject[], event: JsonObject, type: string): void {
    const state = this.#itemFor(out, event, type);
    const index = indexOf(event, 'content_index');
    if (state && !state.parts.has(index)) {
      state.parts.add(index);
      out.push({
        type: 'response.content_part.added',
        item_id: stringMember(event, 'item_id'),
        output_index: state.outputIndex,
        content_index: index,
        part: emptyPart(type),
      });
    }
    if (state && type === 'response.content_part.done') state.partsDone.add(index);
  }

  /** A reasoning summary event: its summary part is announced first if it was not. */
  #summaryPart(out: JsonObject[], event: JsonObject, type: string): void {
    const state = this.#itemFor(out, event, type);
    const index = indexOf(event, 'summary_index');
    if (!state || state.summaries.has(index)) return;
    state.summaries.add(index);
    out.push({
      type: 'response.reasoning_summary_part.added',
      item_id: stringMember(event, 'item_id'),
      output_index: state.outputIndex,
      summary_index: index,
      part: { type: 'summary_text', text: '' },
    });
  }

  /** Closes what the terminal response leaves open, with the items as the response reports them. */
  #closeAll(out: JsonObject[], response: JsonObject | undefined): void {
    const final = new Map<string, JsonObject>();
    for (const item of arrayMember(response, 'output') ?? [])
      if (isRecord(item) && typeof item.id === 'string') final.set(item.id, item);
    for (const [id, state] of this.#items) {
      if (state.done) continue;
      const item = final.get(id) ?? withMembers(state.item, { status: 'incomplete' });
      const content = arrayMember(item, 'content') ?? [];
      for (const index of state.parts) {
        if (state.partsDone.has(index)) continue;
        const part = content[index];
        if (isRecord(part))
          out.push({
            type: 'response.content_part.done',
            item_id: id,
            output_index: state.outputIndex,
            content_index: index,
            part,
          });
      }
      state.done = true;
      out.push({ type: 'response.output_item.done', output_index: state.outputIndex, item });
    }
  }
}
