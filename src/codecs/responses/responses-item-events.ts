import type { Usage } from '../../accounting/usage.js';
import type { JsonObject } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { isBlankArguments, NO_ARGUMENTS } from '../shared/tool-arguments.js';
import { functionCallItem, messageItem } from './chat-to-responses-result.js';
import { reasoningItem, summaryTextPart } from './reasoning-item.js';
import {
  type CallState,
  contentPart,
  type ItemState,
  type MessageState,
  type ReasoningState,
} from './responses-stream-items.js';

/**
 * Sends one event. The terminal event always carries the `usage` key: the upstream's usage, or `undefined`
 * when the stream ended without any, so that the endpoint bills what it counted instead of reading the zeros
 * of the Response object as a bill (usage of in-progress Responses is zeros until the end).
 */
export type Send = (event: JsonObject, terminal?: { usage: Usage | undefined }) => void;

/**
 * The events of the output items of one translated Responses stream (`chat-stream-to-responses-events.ts`
 * decides their order): an item's `response.output_item.added`, the deltas of what it received (text and
 * refusal parts, function call arguments, a reasoning summary), and its done events with the item whole.
 */
export class ItemEvents {
  #nextOutputIndex = 0;

  constructor(private readonly send: Send) {}

  /** Sends what the item has received and not yet sent. */
  drain(item: ItemState): void {
    if (item.kind === 'message') this.drainMessage(item);
    else if (item.kind === 'function_call') this.drainCall(item);
    else this.drainReasoning(item);
  }

  /** Announces an item (`response.output_item.added`), giving it the next output index. */
  add(item: ItemState): void {
    item.added = true;
    item.outputIndex = this.#nextOutputIndex++;
    const shell =
      item.kind === 'message'
        ? messageItem(item.id, 'in_progress', [])
        : item.kind === 'function_call'
          ? functionCallItem(withMembers(item, { arguments: '', status: 'in_progress' }))
          : reasoningItem(item.id, item.blocks);
    this.send({
      type: 'response.output_item.added',
      sequence_number: 0,
      output_index: item.outputIndex,
      item: shell,
    });
  }

  private drainMessage(item: MessageState): void {
    for (const { type, delta } of item.pending) {
      if (item.parts.at(-1)?.type !== type) {
        this.closePart(item);
        item.parts.push({ type, text: '' });
        this.send(this.partEvent(item, 'response.content_part.added', { part: contentPart(type, '') }));
      }
      const part = item.parts.at(-1);
      if (part) part.text += delta;
      const eventType = type === 'output_text' ? 'response.output_text.delta' : 'response.refusal.delta';
      this.send(
        this.partEvent(item, eventType, type === 'output_text' ? { delta, logprobs: [] } : { delta }),
      );
    }
    item.pending = [];
  }

  /** Reasoning text as summary deltas; the summary's one part opens with the first. */
  private drainReasoning(item: ReasoningState): void {
    for (const delta of item.pending) {
      if (item.summary === '') {
        this.send(
          this.summaryEvent(item, 'response.reasoning_summary_part.added', { part: summaryTextPart('') }),
        );
      }
      item.summary += delta;
      this.send(this.summaryEvent(item, 'response.reasoning_summary_text.delta', { delta }));
    }
    item.pending = [];
  }

  private drainCall(item: CallState): void {
    for (const fragment of item.pending) {
      // Blanks before any other text are dropped (whitespace before JSON means nothing): arguments that stay
      // blank become `{}` alone (see closeCall), as the `{}` a provider's adapter may add after them does.
      if (item.arguments === '' && isBlankArguments(fragment)) continue;
      item.arguments += fragment;
      this.send(this.itemEvent(item, 'response.function_call_arguments.delta', { delta: fragment }));
    }
    item.pending = [];
  }

  /** Sends the done events of the message's last content part. */
  private closePart(item: MessageState): void {
    const part = item.parts.at(-1);
    if (!part) return;
    if (part.type === 'output_text') {
      this.send(this.partEvent(item, 'response.output_text.done', { text: part.text, logprobs: [] }));
    } else {
      this.send(this.partEvent(item, 'response.refusal.done', { refusal: part.text }));
    }
    this.send(
      this.partEvent(item, 'response.content_part.done', { part: contentPart(part.type, part.text) }),
    );
  }

  /** Sends an item's done events and answers the item as done. */
  close(item: ItemState): JsonObject {
    if (item.kind === 'message') return this.closeMessage(item);
    if (item.kind === 'function_call') return this.closeCall(item);
    return this.closeReasoning(item);
  }

  private closeReasoning(item: ReasoningState): JsonObject {
    const { summary } = item;
    if (summary !== '') {
      this.send(this.summaryEvent(item, 'response.reasoning_summary_text.done', { text: summary }));
      this.send(
        this.summaryEvent(item, 'response.reasoning_summary_part.done', { part: summaryTextPart(summary) }),
      );
    }
    const done = reasoningItem(item.id, item.blocks, summary);
    if (item.incomplete) done.status = 'incomplete';
    this.sendItemDone(item, done);
    return done;
  }

  private closeMessage(item: MessageState): JsonObject {
    this.closePart(item);
    const content = item.parts.map((part) => contentPart(part.type, part.text));
    const done = messageItem(item.id, item.incomplete ? 'incomplete' : 'completed', content);
    this.sendItemDone(item, done);
    return done;
  }

  private closeCall(item: CallState): JsonObject {
    // No argument text came, or only blanks (a tool without parameters, from many chat servers): the client
    // gets `{}` as one more delta, so that the deltas, `.done` and the item agree, and what it assembled parses.
    if (item.arguments === '') {
      item.pending.push(NO_ARGUMENTS);
      this.drainCall(item);
    }
    const { arguments: args, name } = item;
    this.send(this.itemEvent(item, 'response.function_call_arguments.done', { arguments: args, name }));
    const done = functionCallItem(
      withMembers(item, { status: item.incomplete ? 'incomplete' : 'completed' }),
    );
    this.sendItemDone(item, done);
    return done;
  }

  private sendItemDone(item: ItemState, done: JsonObject): void {
    const event = { type: 'response.output_item.done', sequence_number: 0, output_index: item.outputIndex };
    this.send(withMembers(event, { item: structuredClone(done) }));
  }

  private itemEvent(item: ItemState, type: string, fields: JsonObject): JsonObject {
    return { type, sequence_number: 0, item_id: item.id, output_index: item.outputIndex, ...fields };
  }

  private partEvent(item: MessageState, type: string, fields: JsonObject): JsonObject {
    return this.itemEvent(item, type, { content_index: item.parts.length - 1, ...fields });
  }

  /** An event of a reasoning item's summary, which has one part: the reasoning text. */
  private summaryEvent(item: ReasoningState, type: string, fields: JsonObject): JsonObject {
    return this.itemEvent(item, type, { summary_index: 0, ...fields });
  }
}
