import type { Usage } from '../../accounting/usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import type { ChatStreamPart, ResponsesStreamPart } from '../../providers/provider-adapter.js';
import { replayableThinkingBlocks } from '../messages/thinking-blocks.js';
import { reasoningText } from '../shared/reasoning-text.js';
import { isBlankArguments, NO_ARGUMENTS } from '../shared/tool-arguments.js';
import { ToolCallDeltas } from '../shared/tool-call-deltas.js';
import { clientCallId } from './call-id.js';
import {
  functionCallItem,
  incompleteReason,
  messageItem,
  newId,
  nowSeconds,
  responseObject,
} from './chat-to-responses-result.js';
import { reasoningItem, summaryRequested, summaryTextPart } from './reasoning-item.js';
import {
  type CallState,
  contentPart,
  type ItemState,
  type MessageState,
  NEW_ITEM,
  type PartType,
  type ReasoningState,
} from './responses-stream-items.js';

/**
 * Sends one event. The terminal event always carries the `usage` key: the upstream's usage, or `undefined`
 * when the stream ended without any, so that the endpoint bills what it counted instead of reading the zeros
 * of the Response object as a bill (usage of in-progress Responses is zeros until the end).
 */
type Send = (event: JsonObject, terminal?: { usage: Usage | undefined }) => void;

/**
 * Turns a streamed chat completion (canonical chunks) into the standard Responses event sequence, for
 * Responses requests served by a provider that has only chat completions. Items are sent one after another
 * as OpenAI sends them: the first item streams live, fragments of later items (tool calls whose deltas
 * interleave) wait until the items before them are done. Reasoning text (`delta.reasoning_content`), when
 * the request asked for a summary, streams as the summary of a `reasoning` item (`reasoning_summary_part` and
 * `reasoning_summary_text` events, as OpenAI sends them); Claude's signed thinking (`delta.thinking_blocks`)
 * joins the reasoning item whose text it signs, or becomes one of its own, added and done at once, and
 * carries it back on the next turn. Every event
 * carries `sequence_number: 0`; the codec renumbers them, and sets the response id and model.
 * Events reference: https://platform.openai.com/docs/api-reference/responses-streaming
 */
export function chatStreamToResponsesEvents(
  request: JsonObject,
): TransformStream<ChatStreamPart, ResponsesStreamPart> {
  let translator: StreamTranslator | undefined;
  return new TransformStream<ChatStreamPart, ResponsesStreamPart>({
    start(controller) {
      const send: Send = (event, terminal) =>
        controller.enqueue(
          terminal ? { type: 'event', event, usage: terminal.usage } : { type: 'event', event },
        );
      translator = new StreamTranslator(request, send);
    },
    transform(part) {
      translator?.receive(part);
    },
    flush() {
      translator?.end();
    },
  });
}

/** The choice of index 0 (or without an index, as some providers send it). */
function isFirstChoice(choice: unknown): boolean {
  return isRecord(choice) && (choice.index === undefined || choice.index === 0);
}

/** The state of one stream; one instance per `chatStreamToResponsesEvents` call. */
class StreamTranslator {
  /** Items not yet done, in order of appearance; the first one is live. */
  private readonly queue: ItemState[] = [];
  private readonly output: JsonObject[] = [];
  private readonly calls = new ToolCallDeltas<CallState>();
  /** The message item that takes text, until a tool call starts. */
  private message: MessageState | undefined;
  /** The reasoning item that takes reasoning text, until its thinking blocks, text or a tool call come. */
  private openReasoning: ReasoningState | undefined;
  /** Whether reasoning text is returned (as a summary): only when the request asked for one. */
  private readonly summaryAsked: boolean;
  private nextOutputIndex = 0;
  private header: { id: string; createdAt: number; model: unknown } | undefined;
  private usage: Usage | undefined;
  private finishReason: unknown;

  constructor(
    private readonly request: JsonObject,
    private readonly send: Send,
  ) {
    this.summaryAsked = summaryRequested(request);
  }

  receive(part: ChatStreamPart): void {
    if (!this.header) this.begin(part.type === 'chunk' ? part.chunk : undefined);
    if (part.type === 'usage') {
      this.usage = part.usage;
      return;
    }
    // A Response is one answer: a choice of another index (an upstream that answered n > 1) is not ours.
    const choice = arrayMember(part.chunk, 'choices')?.find(isFirstChoice);
    const delta = recordMember(choice, 'delta');
    const reasoning = this.summaryAsked ? reasoningText(delta) : undefined;
    if (reasoning) this.reasoningFragment(reasoning);
    const thinkingBlocks = replayableThinkingBlocks(delta?.thinking_blocks);
    if (thinkingBlocks.length > 0) this.reasoning(thinkingBlocks);
    const content = stringMember(delta, 'content');
    if (content) this.textFragment('output_text', content);
    const refusal = stringMember(delta, 'refusal');
    if (refusal) this.textFragment('refusal', refusal);
    for (const toolCall of arrayMember(delta, 'tool_calls') ?? []) this.toolCallFragment(toolCall);
    const finishReason = isRecord(choice) ? choice.finish_reason : undefined;
    if (typeof finishReason === 'string') {
      this.finishReason = finishReason;
      this.closeAll();
    }
  }

  end(): void {
    if (!this.header) this.begin(undefined);
    this.closeAll();
    const reason = incompleteReason(this.finishReason);
    this.send(
      {
        type: reason ? 'response.incomplete' : 'response.completed',
        sequence_number: 0,
        response: this.response(reason ? 'incomplete' : 'completed', this.output, this.usage),
      },
      { usage: this.usage },
    );
  }

  private begin(chunk: JsonObject | undefined): void {
    this.header = {
      id: newId('resp'),
      createdAt: typeof chunk?.created === 'number' ? chunk.created : nowSeconds(),
      model: stringMember(chunk, 'model') ?? this.request.model ?? null,
    };
    for (const type of ['response.created', 'response.in_progress']) {
      this.send({ type, sequence_number: 0, response: this.response('in_progress', [], undefined) });
    }
  }

  private response(status: 'in_progress' | 'completed' | 'incomplete', output: JsonObject[], usage?: Usage) {
    const header = this.header ?? { id: newId('resp'), createdAt: nowSeconds(), model: null };
    return responseObject(
      this.request,
      withMembers(header, {
        status,
        incompleteReason: status === 'incomplete' ? incompleteReason(this.finishReason) : undefined,
        output: [...output],
        usage,
      }),
    );
  }

  private textFragment(type: PartType, delta: string): void {
    this.endReasoning();
    if (!this.message) {
      this.message = { kind: 'message', id: newId('msg'), pending: [], parts: [], ...NEW_ITEM };
      this.queue.push(this.message);
    }
    this.message.pending.push({ type, delta });
    this.pump();
  }

  /** Reasoning text: the summary of the open reasoning item; text after it belongs to a new message item. */
  private reasoningFragment(delta: string): void {
    if (!this.openReasoning) {
      this.openReasoning = this.newReasoning([]);
      this.queue.push(this.openReasoning);
      this.endMessage();
    }
    this.openReasoning.pending.push(delta);
    this.pump();
  }

  /**
   * Signed thinking: the blocks that sign the open reasoning item's text close it; without one, they are a
   * whole reasoning item. Text after them belongs to a new message item.
   */
  private reasoning(blocks: JsonObject[]): void {
    if (this.openReasoning && this.openReasoning.blocks.length === 0) this.openReasoning.blocks = blocks;
    else this.queue.push({ ...this.newReasoning(blocks), sealed: true });
    this.endReasoning();
    this.endMessage();
    this.pump();
  }

  private newReasoning(blocks: JsonObject[]): ReasoningState {
    return { kind: 'reasoning', id: newId('rs'), blocks, pending: [], summary: '', ...NEW_ITEM };
  }

  /** No more reasoning text joins the open reasoning item. */
  private endReasoning(): void {
    if (this.openReasoning) this.openReasoning.sealed = true;
    this.openReasoning = undefined;
  }

  /** No more text joins the open message item. */
  private endMessage(): void {
    if (this.message) this.message.sealed = true;
    this.message = undefined;
  }

  private toolCallFragment(toolCall: unknown): void {
    const newCall = (): CallState => ({
      kind: 'function_call',
      id: newId('fc'),
      callId: '',
      name: '',
      arguments: '',
      pending: [],
      blank: '',
      ...NEW_ITEM,
    });
    const { call, created, delta } = this.calls.add(toolCall, newCall);
    if (created) {
      this.queue.push(call);
      // Text after a tool call belongs to a new message item, after the calls.
      this.endReasoning();
      this.endMessage();
    }
    if (call.callId === '' && delta.id) call.callId = clientCallId(delta.id, toolCall);
    if (call.name === '' && delta.name) call.name = delta.name;
    if (delta.argumentsFragment && !call.sealed) call.pending.push(delta.argumentsFragment);
    this.pump();
  }

  /** Ends every open item: the upstream finished. The last one is cut short if the answer was. */
  private closeAll(): void {
    for (const item of this.queue) item.sealed = true;
    const last = this.queue.at(-1);
    if (last && incompleteReason(this.finishReason)) last.incomplete = true;
    this.message = undefined;
    this.openReasoning = undefined;
    this.pump();
  }

  /** Sends what the live item has received, closes it once sealed, and moves on to the next one. */
  private pump(): void {
    for (let item = this.queue[0]; item; item = this.queue[0]) {
      // A call's item announces its name, so it waits for the name unless the stream is over.
      if (!item.added && item.kind === 'function_call' && item.name === '' && !item.sealed) return;
      if (!item.added) this.addItem(item);
      if (item.kind === 'message') this.drainMessage(item);
      else if (item.kind === 'function_call') this.drainCall(item);
      else this.drainReasoning(item);
      if (!item.sealed) return;
      this.queue.shift();
      this.output.push(this.closeItem(item));
    }
  }

  private addItem(item: ItemState): void {
    item.added = true;
    item.outputIndex = this.nextOutputIndex++;
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
      // Blanks before any other text wait: arguments that stay blank become `{}` alone (see closeCall).
      if (item.arguments === '' && isBlankArguments(fragment)) {
        item.blank += fragment;
        continue;
      }
      const delta = item.blank + fragment;
      item.blank = '';
      item.arguments += delta;
      this.send(this.itemEvent(item, 'response.function_call_arguments.delta', { delta }));
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

  private closeItem(item: ItemState): JsonObject {
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
      item.blank = '';
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
