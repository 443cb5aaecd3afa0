import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { listenLoopback } from './listen-loopback.js';

export interface ReceivedMessagesRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export type AnthropicFault =
  | { kind: 'status'; status: number; errorType: string; message: string }
  /**
   * A stream cut short: after the text (`message_delta` and `message_stop` never come) or after
   * `message_delta` (`message_stop` never comes); then held open until the gateway lets go, or failed with
   * an `overloaded_error` event. `startUsage` replaces the usage `message_start` reports.
   */
  | {
      kind: 'stream-cut';
      after: 'text' | 'message_delta';
      ending: 'hold' | 'overloaded';
      startUsage?: Record<string, number>;
    };

export interface FakeAnthropicUpstream {
  /** Base URL ending in /v1. */
  url: string;
  received: ReceivedMessagesRequest[];
  /** Faults applied to the next requests, one per request, in order. */
  faults: AnthropicFault[];
  /** Text the model answers. */
  reply: string;
  /** Input of the tool call it makes. */
  toolInput: Record<string, unknown>;
  usage: {
    input_tokens: number;
    cache_read_input_tokens: number;
    cache_creation_input_tokens: number;
    output_tokens: number;
  };
  /**
   * Opt-in: the `stop_reason` of every answer (e.g. `max_tokens`); with `stop_sequence`, the answer's
   * `stop_sequence` is the request's first stop sequence.
   */
  stopReason?: string;
  /**
   * Opt-in extended thinking: when set, answers to requests with `thinking` enabled begin with this thinking
   * block, and, as the real API, such a request whose last assistant turn has `tool_use` must begin that turn
   * with a thinking block carrying this signature (400 `invalid_request_error` otherwise).
   */
  thinking?: { thinking: string; signature: string };
  close(): Promise<void>;
}

type Block = Record<string, unknown>;

/**
 * A fake Anthropic Messages API on loopback for end-to-end tests. It speaks the real wire format
 * (`POST /v1/messages`, JSON and named SSE events with `ping`), answers with a `tool_use` when the request
 * offers tools and the last turn holds no tool result, else with text (echoing tool results), records every
 * request, and can be told to fail. Reference: https://docs.claude.com/en/api/messages
 */
export async function startFakeAnthropicUpstream(): Promise<FakeAnthropicUpstream> {
  const state: FakeAnthropicUpstream = {
    url: '',
    received: [],
    faults: [],
    reply: 'Hello from the fake Claude!',
    toolInput: { city: 'Paris', unit: 'celsius' },
    usage: { input_tokens: 10, cache_read_input_tokens: 4, cache_creation_input_tokens: 2, output_tokens: 7 },
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body: Record<string, unknown> = text ? JSON.parse(text) : {};
      state.received.push({ path: req.url ?? '', headers: req.headers, body });
      const fault = state.faults.shift();
      if (fault?.kind === 'status') return sendError(res, fault.status, fault.errorType, fault.message);
      if (req.url !== '/v1/messages') return sendError(res, 404, 'not_found_error', `No route ${req.url}`);
      if (req.headers['x-api-key'] === undefined || req.headers['anthropic-version'] === undefined) {
        return sendError(res, 401, 'authentication_error', 'x-api-key and anthropic-version are required');
      }
      if (typeof body.max_tokens !== 'number')
        return sendError(res, 400, 'invalid_request_error', 'max_tokens: Field required');
      const replayError = thinkingReplayError(body, state);
      if (replayError) return sendError(res, 400, 'invalid_request_error', replayError);
      const content = answerContent(body, state);
      if (body.stream === true) return streamMessage(res, body, content, state, fault);
      const message = messageObject(body, content, stopReason(content, state), state.usage);
      res.writeHead(200, { 'content-type': 'application/json', 'request-id': 'req_fake_01' });
      res.end(JSON.stringify(message));
    });
  });
  const listening = await listenLoopback(server);
  state.url = `${listening.origin}/v1`;
  state.close = listening.close;
  return state;
}

function sendError(res: ServerResponse, status: number, type: string, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake_err' });
  res.end(JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_fake_err' }));
}

const thinkingOn = (body: Record<string, unknown>, state: FakeAnthropicUpstream): boolean =>
  state.thinking !== undefined && isObject(body.thinking) && body.thinking.type === 'enabled';

/**
 * With thinking on, the API wants the last assistant turn that used tools to begin with its (signed)
 * thinking block. https://docs.claude.com/en/docs/build-with-claude/extended-thinking#extended-thinking-with-tool-use
 */
function thinkingReplayError(
  body: Record<string, unknown>,
  state: FakeAnthropicUpstream,
): string | undefined {
  if (!thinkingOn(body, state)) return undefined;
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const index = messages.findLastIndex((message) => isObject(message) && message.role === 'assistant');
  const turn: unknown = messages[index];
  const content = isObject(turn) && Array.isArray(turn.content) ? turn.content : [];
  if (!content.some((block) => isObject(block) && block.type === 'tool_use')) return undefined;
  const first: unknown = content[0];
  if (!isObject(first) || first.type !== 'thinking') {
    return `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${
      isObject(first) ? String(first.type) : 'nothing'
    }\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
  }
  if (first.signature !== state.thinking?.signature) {
    return `messages.${index}.content.0: Invalid \`signature\` in \`thinking\` block`;
  }
  return undefined;
}

/** The answer's blocks, after the thinking block when thinking is on (opt-in). */
function answerContent(body: Record<string, unknown>, state: FakeAnthropicUpstream): Block[] {
  const blocks = answerBlocks(body, state);
  const thinking = state.thinking;
  return thinking && thinkingOn(body, state) ? [{ type: 'thinking', ...thinking }, ...blocks] : blocks;
}

/** A tool call when tools are offered and the last user turn is not a tool result; else text. */
function answerBlocks(body: Record<string, unknown>, state: FakeAnthropicUpstream): Block[] {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const last: unknown = messages.at(-1);
  const lastContent = isObject(last) && Array.isArray(last.content) ? last.content : [];
  const results = lastContent.filter(
    (block): block is Block => isObject(block) && block.type === 'tool_result',
  );
  if (results.length > 0) {
    const outputs = results.map((result) => toolResultText(result.content));
    return [{ type: 'text', text: `The tool said: ${outputs.join(' | ')}` }];
  }
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const tool: unknown = tools[0];
  if (isObject(tool) && typeof tool.name === 'string') {
    return [
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_use', id: 'toolu_01FakeToolCall0000000001', name: tool.name, input: state.toolInput },
    ];
  }
  return [{ type: 'text', text: state.reply }];
}

function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) => (isObject(block) && typeof block.text === 'string' ? block.text : ''))
    .join('');
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const stopReason = (content: Block[], state: FakeAnthropicUpstream) =>
  state.stopReason ?? (content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn');

/** The request's first stop sequence when the answer ends on one (opt-in `stopReason: 'stop_sequence'`). */
function stopSequence(body: Record<string, unknown>, stop: string | null): string | null {
  const sequences = Array.isArray(body.stop_sequences) ? body.stop_sequences : [];
  return stop === 'stop_sequence' && typeof sequences[0] === 'string' ? sequences[0] : null;
}

function messageObject(
  body: Record<string, unknown>,
  content: Block[],
  stop: string | null,
  usage: Record<string, number>,
) {
  return {
    id: 'msg_01FakeMessage000000000001',
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: stop,
    stop_sequence: stopSequence(body, stop),
    usage: { ...usage, service_tier: 'standard' },
  };
}

/** The answer as Messages SSE events; every event is written in two pieces, to split it across reads. */
function streamMessage(
  res: ServerResponse,
  body: Record<string, unknown>,
  content: Block[],
  state: FakeAnthropicUpstream,
  cut?: Extract<AnthropicFault, { kind: 'stream-cut' }>,
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: Record<string, unknown>) => {
    const frame = `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`;
    const middle = Math.floor(frame.length / 2);
    res.write(frame.slice(0, middle));
    res.write(frame.slice(middle));
  };
  const startUsage = cut?.startUsage ?? { ...state.usage, output_tokens: 1 };
  send({ type: 'message_start', message: { ...messageObject(body, [], null, startUsage), content: [] } });
  send({ type: 'ping' });
  content.forEach((block, index) => {
    if (block.type === 'thinking') {
      send({ type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '' } });
      const thinking = { type: 'thinking_delta', thinking: block.thinking };
      send({ type: 'content_block_delta', index, delta: thinking });
      send({
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: block.signature },
      });
    } else if (block.type === 'tool_use') {
      send({ type: 'content_block_start', index, content_block: { ...block, input: {} } });
      const json = JSON.stringify(block.input);
      for (let offset = 0; offset < json.length; offset += 5) {
        const partial = json.slice(offset, offset + 5);
        send({
          type: 'content_block_delta',
          index,
          delta: { type: 'input_json_delta', partial_json: partial },
        });
      }
    } else {
      send({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const word of String(block.text).split(/(?<= )/)) {
        send({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: word } });
      }
    }
    send({ type: 'content_block_stop', index });
  });
  if (cut?.after === 'text') {
    endCut(res, cut);
    return;
  }
  send({
    type: 'message_delta',
    delta: {
      stop_reason: stopReason(content, state),
      stop_sequence: stopSequence(body, stopReason(content, state)),
    },
    usage: { output_tokens: state.usage.output_tokens },
  });
  if (cut) {
    endCut(res, cut);
    return;
  }
  send({ type: 'message_stop' });
  res.end();
}

/** The end of a stream cut short: held open (until the gateway lets go), or an `overloaded_error` event. */
function endCut(res: ServerResponse, cut: Extract<AnthropicFault, { kind: 'stream-cut' }>): void {
  if (cut.ending === 'hold') return;
  const error = { type: 'overloaded_error', message: 'Overloaded' };
  res.end(`event: error\ndata: ${JSON.stringify({ type: 'error', error })}\n\n`);
}
