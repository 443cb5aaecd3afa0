import { emptyUsage, type Usage } from '../../accounting/usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import type { ChatStreamPart } from '../../providers/provider-adapter.js';
import { contentText } from '../shared/content-text.js';
import { JsonObjectStream } from '../shared/json-object-stream.js';
import { reasoningText } from '../shared/reasoning-text.js';
import { thoughtSignatureOf } from '../shared/thought-signature.js';
import { ToolCallDeltas } from '../shared/tool-call-deltas.js';
import {
  type MessageMeta,
  matchedStopSequence,
  messagesUsage,
  newToolUseId,
  stopDetails,
  textBlock,
  toolUseBlockOf,
  toStopReason,
} from './chat-to-messages.js';
import { replayableThinkingBlocks } from './thinking-blocks.js';

/**
 * One Messages stream event. The final `message_delta` also carries the canonical usage (undefined when the
 * upstream reported none), so that the endpoint can settle the cost and put it in the event's usage.
 */
export interface MessagesStreamPart {
  event: JsonObject;
  usage?: Usage | undefined;
}

interface BlockState {
  kind: 'text' | 'thinking' | 'redacted_thinking' | 'tool_use';
  /** The running content-block index, set when the block starts. */
  index: number;
  started: boolean;
  /** No fragment will join this block any more; it stops once it is the live block. */
  sealed: boolean;
  /** Fragments received but not yet sent, because an earlier block is still live. */
  pending: string[];
  /** tool_use only: the arguments passed on only as far as they are the start of an object (see `JsonObjectStream`). */
  input: JsonObjectStream | undefined;
  /** tool_use only. */
  id: string;
  name: string;
  /** tool_use only: the call's Gemini thought signature, carried in the id (see tool-use-id.ts). */
  thoughtSignature: string | undefined;
  /** thinking: the signature, sent as a `signature_delta` before the block stops; redacted_thinking: data. */
  signature: string;
  data: string;
}

type Send = (event: JsonObject, usage?: Usage) => void;

/** One event of a Messages stream on the wire: `event: <type>`, then its JSON. */
export function messagesEventFrame(event: JsonObject): string {
  return `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * Turns a streamed chat completion (canonical chunks) into the Anthropic Messages event stream:
 * `message_start`, then per content block `content_block_start` / `content_block_delta` (`text_delta`,
 * `thinking_delta`, `input_json_delta`) / `content_block_stop` with a running `index`, then `message_delta`
 * (stop reason and usage) and `message_stop`. Reasoning, text and each tool call are separate blocks, sent
 * one after another: fragments of a later block (tool calls whose deltas interleave, keyed by the chat
 * tool-call index) wait until the blocks before it are done. A whole signed block in `delta.thinking_blocks`
 * (Claude's, from the Anthropic adapter) ends the thinking block with a `signature_delta`, as Anthropic
 * streams it; a `redacted_thinking` block is sent whole. A tool call's arguments stream as they come as far as
 * they are the start of a JSON object, and are closed into one when the call ends: text after the object, an
 * array, a cut-off argument (which Anthropic's SDK fails the whole message on) never reach the client.
 * Events reference: https://docs.anthropic.com/en/docs/build-with-claude/streaming
 */
export function chatStreamToMessagesEvents(
  meta: MessageMeta,
): TransformStream<ChatStreamPart, MessagesStreamPart> {
  let translator: StreamTranslator | undefined;
  return new TransformStream<ChatStreamPart, MessagesStreamPart>({
    start(controller) {
      translator = new StreamTranslator(meta, (event, usage) =>
        controller.enqueue(usage === undefined ? { event } : { event, usage }),
      );
    },
    transform(part) {
      translator?.receive(part);
    },
    flush() {
      translator?.end();
    },
  });
}

/** The state of one stream; one instance per `chatStreamToMessagesEvents` call. */
class StreamTranslator {
  /** Blocks not yet stopped, in order of appearance; the first one is live. */
  private readonly queue: BlockState[] = [];
  private readonly calls = new ToolCallDeltas<BlockState>();
  /** The text or thinking block that takes fragments of its kind, until another kind starts. */
  private open: BlockState | undefined;
  private nextIndex = 0;
  private started = false;
  private usage: Usage | undefined;
  private finishReason: unknown;
  private stopSequence: string | undefined;
  private refusal = false;

  constructor(
    private readonly meta: MessageMeta,
    private readonly send: Send,
  ) {}

  receive(part: ChatStreamPart): void {
    if (part.type === 'usage') this.usage = part.usage;
    if (!this.started) this.start();
    if (part.type === 'usage') return;
    const choice = arrayMember(part.chunk, 'choices')?.[0];
    const delta = recordMember(choice, 'delta');
    const reasoning = reasoningText(delta);
    if (reasoning) this.fragment('thinking', reasoning);
    for (const block of replayableThinkingBlocks(delta?.thinking_blocks)) this.signedBlock(block);
    const content = contentText(delta?.content);
    if (content) this.fragment('text', content);
    const refusal = stringMember(delta, 'refusal');
    if (refusal) {
      this.refusal = true;
      this.fragment('text', refusal);
    }
    for (const toolCall of arrayMember(delta, 'tool_calls') ?? []) this.toolCallFragment(toolCall);
    const finishReason = isRecord(choice) ? choice.finish_reason : undefined;
    if (typeof finishReason === 'string') {
      this.finishReason = finishReason;
      this.stopSequence = matchedStopSequence(choice, this.meta.stopSequences);
      this.closeAll();
    }
  }

  end(): void {
    if (!this.started) this.start();
    this.closeAll();
    const facts = { toolUse: this.calls.size > 0, refusal: this.refusal, stopSequence: this.stopSequence };
    const stopReason = toStopReason(this.finishReason, facts);
    const delta = {
      stop_reason: stopReason,
      stop_sequence: this.stopSequence ?? null,
      stop_details: stopDetails(stopReason),
      container: null,
    };
    const usage = messagesUsage(this.usage ?? emptyUsage());
    this.send({ type: 'message_delta', delta, usage }, this.usage);
    this.send({ type: 'message_stop' });
  }

  private start(): void {
    this.started = true;
    const message = {
      id: this.meta.id,
      type: 'message',
      role: 'assistant',
      model: this.meta.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: messagesUsage(this.usage ?? emptyUsage()),
    };
    this.send({ type: 'message_start', message });
  }

  private fragment(kind: 'text' | 'thinking', text: string): void {
    if (this.open?.kind !== kind) {
      if (this.open) this.open.sealed = true;
      this.open = newBlock(kind);
      this.queue.push(this.open);
    }
    this.open.pending.push(text);
    this.pump();
  }

  /**
   * A whole thinking block with its signature: it signs and ends the thinking block being streamed (whose
   * text came as reasoning fragments), or is a block of its own when none is; a redacted block is its own.
   */
  private signedBlock(block: JsonObject): void {
    let signed = this.open?.kind === 'thinking' && block.type === 'thinking' ? this.open : undefined;
    if (!signed) {
      if (this.open) this.open.sealed = true;
      signed = newBlock(block.type === 'thinking' ? 'thinking' : 'redacted_thinking');
      const thinking = stringMember(block, 'thinking');
      if (thinking) signed.pending.push(thinking);
      signed.data = stringMember(block, 'data') ?? '';
      this.queue.push(signed);
    }
    signed.signature = stringMember(block, 'signature') ?? '';
    signed.sealed = true;
    this.open = undefined;
    this.pump();
  }

  private toolCallFragment(toolCall: unknown): void {
    const { call, created, delta } = this.calls.add(toolCall, () => newBlock('tool_use'));
    if (created) {
      this.queue.push(call);
      // Text after a tool call belongs to a new block, after the calls.
      if (this.open) this.open.sealed = true;
      this.open = undefined;
    }
    if (call.id === '' && delta.id) call.id = delta.id;
    if (call.name === '' && delta.name) call.name = delta.name;
    call.thoughtSignature ??= thoughtSignatureOf(toolCall);
    if (delta.argumentsFragment && !call.sealed) call.pending.push(delta.argumentsFragment);
    this.pump();
  }

  /** Ends every open block: the upstream finished. */
  private closeAll(): void {
    for (const block of this.queue) block.sealed = true;
    this.open = undefined;
    this.pump();
  }

  /** Sends what the live block has received, stops it once sealed, and moves on to the next one. */
  private pump(): void {
    for (let block = this.queue[0]; block; block = this.queue[0]) {
      // A tool_use block announces its name, so it waits for the name unless the stream is over.
      if (!block.started && block.kind === 'tool_use' && block.name === '' && !block.sealed) return;
      if (!block.started) this.startBlock(block);
      for (const fragment of block.pending) this.sendDelta(block, block.input?.push(fragment) ?? fragment);
      block.pending = [];
      if (!block.sealed) return;
      if (block.input) this.sendDelta(block, block.input.end());
      if (block.signature !== '') {
        const delta = { type: 'signature_delta', signature: block.signature };
        this.send({ type: 'content_block_delta', index: block.index, delta });
      }
      this.queue.shift();
      this.send({ type: 'content_block_stop', index: block.index });
    }
  }

  private sendDelta(block: BlockState, fragment: string): void {
    if (fragment === '') return;
    this.send({ type: 'content_block_delta', index: block.index, delta: deltaOf(block, fragment) });
  }

  private startBlock(block: BlockState): void {
    block.started = true;
    block.index = this.nextIndex++;
    if (block.kind === 'tool_use' && block.id === '') block.id = newToolUseId();
    this.send({ type: 'content_block_start', index: block.index, content_block: shellOf(block) });
  }
}

function newBlock(kind: BlockState['kind']): BlockState {
  const fields = { id: '', name: '', thoughtSignature: undefined, signature: '', data: '' };
  const input = kind === 'tool_use' ? new JsonObjectStream() : undefined;
  return { kind, index: -1, started: false, sealed: false, pending: [], input, ...fields };
}

function shellOf(block: BlockState): JsonObject {
  if (block.kind === 'text') return textBlock('');
  if (block.kind === 'thinking') return { type: 'thinking', thinking: '', signature: '' };
  if (block.kind === 'redacted_thinking') return { type: 'redacted_thinking', data: block.data };
  return toolUseBlockOf(block.id, block.name, {}, block.thoughtSignature);
}

function deltaOf(block: BlockState, fragment: string): JsonObject {
  if (block.kind === 'text') return { type: 'text_delta', text: fragment };
  if (block.kind === 'thinking') return { type: 'thinking_delta', thinking: fragment };
  return { type: 'input_json_delta', partial_json: fragment };
}
