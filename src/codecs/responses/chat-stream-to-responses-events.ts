import type { Usage } from '../../accounting/usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import type { ChatStreamPart, ResponsesStreamPart } from '../../providers/provider-adapter.js';
import { replayableThinkingBlocks } from '../messages/thinking-blocks.js';
import { contentText } from '../shared/content-text.js';
import { reasoningText } from '../shared/reasoning-text.js';
import { ToolCallDeltas } from '../shared/tool-call-deltas.js';
import { clientCallId } from './call-id.js';
import {
  incompleteReason,
  isFirstChoice,
  newId,
  nowSeconds,
  responseObject,
} from './chat-to-responses-result.js';
import { summaryRequested } from './reasoning-item.js';
import { ItemEvents, type Send } from './responses-item-events.js';
import {
  type CallState,
  type ItemState,
  type MessageState,
  NEW_ITEM,
  type PartType,
  type ReasoningState,
} from './responses-stream-items.js';

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
  /** Sends each item's events: added, its deltas, done. */
  private readonly items: ItemEvents;
  private header: { id: string; createdAt: number; model: unknown } | undefined;
  private usage: Usage | undefined;
  private finishReason: unknown;

  constructor(
    private readonly request: JsonObject,
    private readonly send: Send,
  ) {
    this.summaryAsked = summaryRequested(request);
    this.items = new ItemEvents(send);
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
    const content = contentText(delta?.content);
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
      // A call the upstream gave no id gets one when announced, as in a plain answer: the client sends it back.
      if (!item.added && item.kind === 'function_call' && item.callId === '') item.callId = newId('call');
      if (!item.added) this.items.add(item);
      this.items.drain(item);
      if (!item.sealed) return;
      this.queue.shift();
      this.output.push(this.items.close(item));
    }
  }
}
