import { randomUUID } from 'node:crypto';
import { arrayMember, isRecord, type JsonObject, stringMember } from '../json/json.js';
import { withMembers } from '../json/with-members.js';

/** True for a Responses object that finished complete (not incomplete, failed or cancelled). */
export const isCompleteResponse = (response: JsonObject): boolean =>
  stringMember(response, 'status') === 'completed' && Array.isArray(response.output);

/**
 * Gives the output items of a cached Response fresh ids (in place), each with its old id's prefix (`msg_`,
 * `fc_` …): a hit is another response, and clients that keep items by id must not get one answer's ids
 * twice. Reasoning items keep theirs: the provider finds a reasoning item's state by its id when a client
 * sends it back, and the item is the same reasoning either way. Call ids (`call_id`) stay as well: they pair a
 * call with its result within one conversation. The response's own id is the request's `gen_` id anyway.
 */
export function freshItemIds(response: JsonObject): void {
  for (const item of arrayMember(response, 'output') ?? []) {
    if (!isRecord(item) || typeof item.id !== 'string' || item.type === 'reasoning') continue;
    const cut = item.id.indexOf('_');
    item.id = `${cut > 0 ? item.id.slice(0, cut) : 'item'}_${randomUUID().replaceAll('-', '')}`;
  }
}

/**
 * The standard Responses event sequence of a complete Response object, as a native provider streams it:
 * `response.created`, `response.in_progress`, each output item added, its content parts and text (one delta
 * each) or its call arguments, the item done, then `response.completed`. Sequence numbers, the response id
 * and the model are the endpoint's framer's to set. Items of other types are added and done at once.
 */
export function responseEvents(response: JsonObject): JsonObject[] {
  const inProgress = withMembers(response, { status: 'in_progress', output: [], usage: null });
  const events: JsonObject[] = [
    { type: 'response.created', response: inProgress },
    { type: 'response.in_progress', response: { ...inProgress } },
  ];
  for (const [outputIndex, item] of (arrayMember(response, 'output') ?? []).entries()) {
    if (!isRecord(item)) continue;
    const itemId = stringMember(item, 'id') ?? `item_${outputIndex}`;
    const whole = withMembers(item, { id: itemId });
    const type = stringMember(item, 'type');
    if (type === 'message') for (const one of messageEvents(whole, itemId, outputIndex)) events.push(one);
    else if (type === 'function_call')
      for (const one of callEvents(whole, itemId, outputIndex)) events.push(one);
    else {
      events.push({ type: 'response.output_item.added', output_index: outputIndex, item: whole });
      events.push({ type: 'response.output_item.done', output_index: outputIndex, item: whole });
    }
  }
  events.push({ type: 'response.completed', response });
  return events;
}

function messageEvents(item: JsonObject, itemId: string, outputIndex: number): JsonObject[] {
  const at = { item_id: itemId, output_index: outputIndex };
  const events: JsonObject[] = [
    {
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: withMembers(item, { status: 'in_progress', content: [] }),
    },
  ];
  for (const [contentIndex, part] of (arrayMember(item, 'content') ?? []).entries()) {
    if (!isRecord(part)) continue;
    const where = withMembers(at, { content_index: contentIndex });
    const partType = stringMember(part, 'type');
    if (partType === 'output_text') {
      const text = stringMember(part, 'text') ?? '';
      const logprobs: unknown[] = [];
      events.push(
        {
          type: 'response.content_part.added',
          ...where,
          part: withMembers(part, { text: '', annotations: [] }),
        },
        { type: 'response.output_text.delta', ...where, delta: text, logprobs },
        { type: 'response.output_text.done', ...where, text, logprobs },
      );
    } else if (partType === 'refusal') {
      const refusal = stringMember(part, 'refusal') ?? '';
      events.push(
        { type: 'response.content_part.added', ...where, part: withMembers(part, { refusal: '' }) },
        { type: 'response.refusal.delta', ...where, delta: refusal },
        { type: 'response.refusal.done', ...where, refusal },
      );
    } else {
      events.push({ type: 'response.content_part.added', ...where, part });
    }
    events.push({ type: 'response.content_part.done', ...where, part });
  }
  events.push({ type: 'response.output_item.done', output_index: outputIndex, item });
  return events;
}

function callEvents(item: JsonObject, itemId: string, outputIndex: number): JsonObject[] {
  const at = { item_id: itemId, output_index: outputIndex };
  const args = stringMember(item, 'arguments') ?? '';
  return [
    {
      type: 'response.output_item.added',
      output_index: outputIndex,
      item: withMembers(item, { status: 'in_progress', arguments: '' }),
    },
    { type: 'response.function_call_arguments.delta', ...at, delta: args },
    { type: 'response.function_call_arguments.done', ...at, arguments: args, name: item.name },
    { type: 'response.output_item.done', output_index: outputIndex, item },
  ];
}
