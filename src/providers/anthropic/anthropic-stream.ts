import { GatewayError } from '../../errors/gateway-error.js';
import type { ChatStreamPart } from '../provider-adapter.js';
import { isRecord, type JsonObject, recordMember, stringMember, tryParseJson } from '../shared/json.js';
import { upstreamInvalid } from '../shared/upstream-errors.js';
import { finishReason, usageFromMessages } from './anthropic-response.js';

interface ToolBlock {
  /** The tool call's index among this answer's tool calls (chat `tool_calls[].index`). */
  toolIndex: number;
  sentArguments: boolean;
}

interface StreamState {
  providerId: string;
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
  /** The latest usage counts (cumulative). */
  usage: JsonObject;
}

type Emit = (part: ChatStreamPart) => void;

/**
 * Messages API stream events as `chat.completion.chunk` parts. The first chunk carries `role`; each
 * `tool_use` block becomes a tool call (`index` counting tool calls from 0) whose arguments arrive as
 * `input_json_delta` fragments; thinking deltas become `reasoning_content`. Nothing is emitted for
 * `message_start`, so an `error` event before any content still lets the gateway try another provider.
 * `message_stop` ends the answer with the usage; a stream that ends without it is an error.
 * Reference: https://docs.claude.com/en/docs/build-with-claude/streaming
 */
export function messagesStreamToChat(providerId: string, nowSeconds: number) {
  const state: StreamState = {
    providerId,
    id: '',
    model: '',
    created: nowSeconds,
    roleSent: false,
    finished: false,
    stopped: false,
    nextToolIndex: 0,
    tools: new Map(),
    usage: {},
  };
  return new TransformStream<{ data: string }, ChatStreamPart>({
    transform(message, controller) {
      if (state.stopped) return;
      const event = tryParseJson(message.data);
      if (!isRecord(event)) throw upstreamInvalid(providerId, 'a stream event is not JSON');
      onEvent(state, event, (part) => controller.enqueue(part));
    },
    flush() {
      if (!state.stopped) throw upstreamInvalid(providerId, 'the stream ended before message_stop');
    },
  });
}

function onEvent(state: StreamState, event: JsonObject, emit: Emit): void {
  switch (event.type) {
    case 'message_start': {
      const message = recordMember(event, 'message');
      state.id = stringMember(message, 'id') ?? '';
      state.model = stringMember(message, 'model') ?? '';
      Object.assign(state.usage, recordMember(message, 'usage'));
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
      // Usage counts in message_delta are cumulative: they replace those of message_start.
      Object.assign(state.usage, recordMember(event, 'usage'));
      const stopReason = recordMember(event, 'delta')?.stop_reason;
      if (typeof stopReason === 'string') finish(state, finishReason(stopReason), emit);
      return;
    }
    case 'message_stop':
      finish(state, 'stop', emit);
      state.stopped = true;
      emit({ type: 'usage', usage: usageFromMessages(state.usage) });
      return;
    case 'error':
      throw streamError(state.providerId, recordMember(event, 'error'));
    default:
      // `ping`, and event types added later: ignored, as the API asks.
      return;
  }
}

function chunk(state: StreamState, delta: JsonObject, finishReason: string | null = null): ChatStreamPart {
  const withRole = state.roleSent ? delta : { role: 'assistant', ...delta };
  state.roleSent = true;
  return {
    type: 'chunk',
    chunk: {
      id: state.id,
      object: 'chat.completion.chunk',
      created: state.created,
      model: state.model,
      choices: [{ index: 0, delta: withRole, logprobs: null, finish_reason: finishReason }],
    },
  };
}

function finish(state: StreamState, reason: string, emit: Emit): void {
  if (state.finished) return;
  state.finished = true;
  emit(chunk(state, {}, reason));
}

function blockStart(state: StreamState, event: JsonObject, emit: Emit): void {
  const block = recordMember(event, 'content_block');
  const type = stringMember(block, 'type');
  if (type === 'tool_use' && typeof event.index === 'number') {
    const toolIndex = state.nextToolIndex++;
    state.tools.set(event.index, { toolIndex, sentArguments: false });
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
  const thinking = type === 'thinking' ? stringMember(block, 'thinking') : undefined;
  if (thinking) emit(chunk(state, { reasoning_content: thinking }));
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
      if (thinking) emit(chunk(state, { reasoning_content: thinking }));
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
      // signature_delta and citations_delta have no chat equivalent.
      return;
  }
}

/** A tool call that got no argument fragments gets `{}`, so that clients can parse what they assembled. */
function blockStop(state: StreamState, event: JsonObject, emit: Emit): void {
  const tool = typeof event.index === 'number' ? state.tools.get(event.index) : undefined;
  if (!tool || tool.sentArguments) return;
  tool.sentArguments = true;
  emit(chunk(state, { tool_calls: [{ index: tool.toolIndex, function: { arguments: '{}' } }] }));
}

/** An `error` event: the upstream failed mid-stream (e.g. `overloaded_error`); another attempt may succeed. */
function streamError(providerId: string, error: JsonObject | undefined): GatewayError {
  const message = stringMember(error, 'message') ?? stringMember(error, 'type') ?? 'unknown error';
  return new GatewayError(`Provider ${providerId} failed mid-stream: ${message}`, {
    status: 502,
    code: null,
    type: 'upstream_error',
    retryable: true,
    extra: { provider: providerId, upstream_error_type: stringMember(error, 'type') ?? null },
  });
}
