import { isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import type { ChatStreamPart } from '../provider-adapter.js';
import type { EventTranslator } from '../shared/json-poster.js';
import {
  parseUpstreamJson,
  type UpstreamTextContext,
  upstreamInvalid,
  upstreamStreamError,
} from '../shared/upstream-errors.js';
import { finishReason, matchedStop, usageFromMessages } from './anthropic-response.js';

interface ToolBlock {
  /** The tool call's index among this answer's tool calls (chat `tool_calls[].index`). */
  toolIndex: number;
  sentArguments: boolean;
  /** `input` of `content_block_start` as JSON: `{}` from Anthropic; a compatible server may put it all there. */
  startInput: string;
}

interface StreamState {
  providerId: string;
  /** The provider's credentials (scrubbed from its error text) and the request (text quoting it is withheld). */
  text: UpstreamTextContext;
  id: string;
  model: string;
  created: number;
  roleSent: boolean;
  /** A chunk with `finish_reason` was sent. */
  finished: boolean;
  /** `message_stop` arrived; later events are ignored. */
  stopped: boolean;
  nextToolIndex: number;
  /** Tool calls by content block index. */
  tools: Map<number, ToolBlock>;
  /** `thinking` and `redacted_thinking` blocks being received, by content block index. */
  thinking: Map<number, JsonObject>;
  /** The latest usage counts (cumulative). */
  usage: JsonObject;
}

type Emit = (part: ChatStreamPart) => void;

/**
 * Messages API stream events as `chat.completion.chunk` parts. The first chunk carries `role`; each
 * `tool_use` block becomes a tool call (`index` counting tool calls from 0) whose arguments arrive as
 * `input_json_delta` fragments; thinking deltas become `reasoning_content`. Each `thinking` block, once
 * whole (with the signature of its `signature_delta`), and each `redacted_thinking` block is sent as
 * `delta.thinking_blocks: [block]`, one complete block per entry, the plain answer's `thinking_blocks`
 * convention: a client that appends them gets the list to send back on the assistant message. The stop
 * sequence that ended the answer rides on the finish chunk's choice as `matched_stop`. Nothing is emitted for
 * `message_start`, so an `error` event before any content still lets the gateway try another provider.
 * `message_stop` ends the answer with the usage; a stream that ends without it is an error.
 * Reference: https://docs.claude.com/en/docs/build-with-claude/streaming
 */
export function messagesStreamToChat(
  providerId: string,
  nowSeconds: number,
  text: UpstreamTextContext = {},
): EventTranslator<ChatStreamPart> {
  const state: StreamState = {
    providerId,
    text,
    id: '',
    model: '',
    created: nowSeconds,
    roleSent: false,
    finished: false,
    stopped: false,
    nextToolIndex: 0,
    tools: new Map(),
    thinking: new Map(),
    usage: {},
  };
  return {
    // What a stream cut short is billed from: the counts of message_start, raised by each message_delta.
    usageSoFar: () => (Object.keys(state.usage).length > 0 ? usageFromMessages(state.usage) : undefined),
    onEvent(message, emit) {
      if (state.stopped) return;
      const event = parseUpstreamJson(providerId, message.data);
      if (!isRecord(event)) throw upstreamInvalid(providerId, 'a stream event is not JSON');
      onEvent(state, event, emit);
    },
    onEnd() {
      if (!state.stopped) throw upstreamInvalid(providerId, 'the stream ended before message_stop');
    },
  };
}

function onEvent(state: StreamState, event: JsonObject, emit: Emit): void {
  switch (event.type) {
    case 'message_start': {
      const message = recordMember(event, 'message');
      state.id = stringMember(message, 'id') ?? '';
      state.model = stringMember(message, 'model') ?? '';
      raiseCounts(state.usage, recordMember(message, 'usage'));
      return;
    }
    case 'content_block_start':
      blockStart(state, event, emit);
      return;
    case 'content_block_delta':
      blockDelta(state, event, emit);
      return;
    case 'content_block_stop':
      blockStop(state, event, emit);
      return;
    case 'message_delta': {
      // Usage counts in message_delta are cumulative: they raise those of message_start.
      raiseCounts(state.usage, recordMember(event, 'usage'));
      const delta = recordMember(event, 'delta');
      const stopReason = delta?.stop_reason;
      if (typeof stopReason === 'string') {
        finish(state, finishReason(stopReason), emit, matchedStop(stopReason, delta?.stop_sequence));
      }
      return;
    }
    case 'message_stop':
      finish(state, 'stop', emit);
      state.stopped = true;
      emit({ type: 'usage', usage: usageFromMessages(state.usage) });
      return;
    case 'error':
      throw upstreamStreamError(state.providerId, recordMember(event, 'error'), state.text);
    default:
      // `ping`, and event types added later: ignored, as the API asks.
      return;
  }
}

/**
 * Takes a usage object's members into the counts so far. Counts are cumulative and never go down: a count
 * lower than the one already known (a compatible server's `message_delta` with `input_tokens: 0`, say) keeps
 * the known one. Anything that is not a count is taken as it is, for the usage reader to judge.
 */
function raiseCounts(counts: JsonObject, usage: JsonObject | undefined): void {
  if (!usage) return;
  for (const key in usage) {
    const value = usage[key];
    const known = counts[key];
    if (typeof value === 'number' && typeof known === 'number' && value < known) continue;
    counts[key] = value;
  }
}

function chunk(
  state: StreamState,
  delta: JsonObject,
  finishReason: string | null = null,
  choiceExtra: JsonObject = {},
): ChatStreamPart {
  const withRole = state.roleSent ? delta : { role: 'assistant', ...delta };
  state.roleSent = true;
  return {
    type: 'chunk',
    chunk: {
      id: state.id,
      object: 'chat.completion.chunk',
      created: state.created,
      model: state.model,
      choices: [{ index: 0, delta: withRole, logprobs: null, finish_reason: finishReason, ...choiceExtra }],
    },
  };
}

function finish(state: StreamState, reason: string, emit: Emit, choiceExtra: JsonObject = {}): void {
  if (state.finished) return;
  state.finished = true;
  emit(chunk(state, {}, reason, choiceExtra));
}

function blockStart(state: StreamState, event: JsonObject, emit: Emit): void {
  const block = recordMember(event, 'content_block');
  const type = stringMember(block, 'type');
  if (type === 'tool_use' && typeof event.index === 'number') {
    const toolIndex = state.nextToolIndex++;
    const input = recordMember(block, 'input');
    const startInput = input && Object.keys(input).length > 0 ? JSON.stringify(input) : '{}';
    state.tools.set(event.index, { toolIndex, sentArguments: false, startInput });
    const call = {
      index: toolIndex,
      id: block?.id,
      type: 'function',
      function: { name: block?.name, arguments: '' },
    };
    emit(chunk(state, { tool_calls: [call] }));
    return;
  }
  const text = type === 'text' ? stringMember(block, 'text') : undefined;
  if (text) emit(chunk(state, { content: text }));
  if (typeof event.index !== 'number') return;
  if (type === 'redacted_thinking') {
    state.thinking.set(event.index, { type, data: stringMember(block, 'data') ?? '' });
  } else if (type === 'thinking') {
    const thinking = stringMember(block, 'thinking') ?? '';
    state.thinking.set(event.index, { type, thinking, signature: stringMember(block, 'signature') ?? '' });
    if (thinking) emit(chunk(state, { reasoning_content: thinking }));
  }
}

function blockDelta(state: StreamState, event: JsonObject, emit: Emit): void {
  const delta = recordMember(event, 'delta');
  switch (stringMember(delta, 'type')) {
    case 'text_delta': {
      const text = stringMember(delta, 'text');
      if (text) emit(chunk(state, { content: text }));
      return;
    }
    case 'thinking_delta': {
      const thinking = stringMember(delta, 'thinking');
      const block = thinkingBlock(state, event);
      if (block && thinking) block.thinking = `${stringMember(block, 'thinking') ?? ''}${thinking}`;
      if (thinking) emit(chunk(state, { reasoning_content: thinking }));
      return;
    }
    case 'signature_delta': {
      const block = thinkingBlock(state, event);
      const signature = stringMember(delta, 'signature');
      if (block && signature) block.signature = `${stringMember(block, 'signature') ?? ''}${signature}`;
      return;
    }
    case 'input_json_delta': {
      const tool = typeof event.index === 'number' ? state.tools.get(event.index) : undefined;
      const fragment = stringMember(delta, 'partial_json');
      if (!tool || !fragment) return;
      tool.sentArguments = true;
      emit(chunk(state, { tool_calls: [{ index: tool.toolIndex, function: { arguments: fragment } }] }));
      return;
    }
    default:
      // citations_delta has no chat equivalent.
      return;
  }
}

/** The `thinking` block (not `redacted_thinking`) an event is about, if any. */
function thinkingBlock(state: StreamState, event: JsonObject): JsonObject | undefined {
  const block = typeof event.index === 'number' ? state.thinking.get(event.index) : undefined;
  return block?.type === 'thinking' ? block : undefined;
}

/**
 * A thinking block is sent whole once it stops (as `delta.thinking_blocks`); a tool call that got no
 * argument fragments gets the `input` its block started with (`{}` from Anthropic), so that clients can
 * parse what they assembled.
 */
function blockStop(state: StreamState, event: JsonObject, emit: Emit): void {
  const thinking = typeof event.index === 'number' ? state.thinking.get(event.index) : undefined;
  if (thinking && typeof event.index === 'number') {
    state.thinking.delete(event.index);
    emit(chunk(state, { thinking_blocks: [thinking] }));
    return;
  }
  const tool = typeof event.index === 'number' ? state.tools.get(event.index) : undefined;
  if (!tool || tool.sentArguments) return;
  tool.sentArguments = true;
  emit(chunk(state, { tool_calls: [{ index: tool.toolIndex, function: { arguments: tool.startInput } }] }));
}
