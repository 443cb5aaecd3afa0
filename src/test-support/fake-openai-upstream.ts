import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { applyHostileFault, type HostileFault, isHostileFault } from './fake-hostile-faults.js';
import { chatCompletion, streamChat } from './fake-openai-chat.js';
import {
  compactionObject,
  FAKE_USAGE,
  isResponsesStreamFault,
  type ResponsesStreamFault,
  responseObject,
  streamResponses,
} from './fake-openai-responses.js';
import { listenLoopback } from './listen-loopback.js';

export { FAKE_USAGE };

/**
 * A fake OpenAI-protocol upstream on loopback for end-to-end tests. It speaks the real wire format
 * (chat completions plain and SSE, Responses plain and SSE, embeddings float/base64, images), records every
 * request it receives, and can be told to misbehave.
 */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
  /** The body exactly as it arrived. */
  text: string;
}

export type Fault =
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'reset-mid-stream'; afterChunks: number }
  /**
   * A stream that reports an error after its role chunk and `afterChunks` content chunks, as OpenRouter and
   * other OpenAI-compatible routers do: a chunk with `error` (and a choice finished with `error`), then the end.
   * With `usage`, the error chunk reports the usage of the whole answer (which its provider bills); `code` is
   * the error's numeric code (default 502).
   */
  | { kind: 'error-event'; afterChunks: number; message: string; usage?: boolean; code?: number }
  | { kind: 'invalid-json' }
  /**
   * The answer ends with this finish reason (no `error` member), streamed or not; a stream sends only its
   * first `afterChunks` content chunks (default: all of them) before it.
   */
  | { kind: 'finish'; reason: string; afterChunks?: number }
  /** Content deltas every `intervalMs`, never ending; each carries `content` (default `more `). */
  | { kind: 'endless-stream'; intervalMs: number; content?: string }
  | { kind: 'slow-stream'; delayMs: number }
  /** A stream, or a plain chat answer, that never reports usage, as some OpenAI-compatible servers answer. */
  | { kind: 'no-usage' }
  | { kind: 'delay'; ms: number }
  /** The answer waits until `until` resolves (tests release it once a condition holds). */
  | { kind: 'hold'; until: Promise<void> }
  | ResponsesStreamFault
  | HostileFault;

export interface FakeUpstream {
  url: string;
  received: ReceivedRequest[];
  /** Faults applied to the next requests, one per request, in order. */
  faults: Fault[];
  /** Text the model "answers". */
  reply: string;
  /** When set, the model also calls these tools after its text (finish_reason `tool_calls`). */
  toolCalls?: FakeToolCall[];
  /**
   * Opt-in: `toolCalls` are answered only to requests that offer tools and whose last turn is not a tool
   * result (as the Anthropic and Gemini fakes do), so that a tool loop ends with text. Default: always.
   */
  toolCallsWhenOffered?: boolean;
  /**
   * Opt-in: `/responses` answers carry `toolCalls` too, as `function_call` items after the message
   * (streamed: `output_item.added`, two `function_call_arguments.delta`, `.done`, `output_item.done`).
   * Default: `/responses` answers with text only.
   */
  responsesToolCalls?: boolean;
  /**
   * Opt-in: streamed `/responses` answers leave out the item lifecycle events (`output_item.added`/`.done`,
   * `content_part.added`/`.done`, `response.in_progress`), as lax OpenAI-compatible servers do.
   */
  sparseResponsesStream?: boolean;
  /**
   * Opt-in: the finish reason of chat answers instead of `stop` / `tool_calls` (e.g. `length`); on
   * `/responses`, `length` makes the answer `incomplete` (`max_output_tokens`).
   */
  finishReason?: string;
  /** Opt-in: chat answers carry this as `reasoning_content` (streamed first), as DeepSeek and vLLM do. */
  reasoningContent?: string;
  /** Requests whose client (the gateway) went away before the answer ended. */
  cancelledStreams: number;
  close(): Promise<void>;
}

/** A tool call the fake model answers with. */
export interface FakeToolCall {
  id: string;
  name: string;
  arguments: string;
}

export async function startFakeOpenAIUpstream(): Promise<FakeUpstream> {
  const state: FakeUpstream = {
    url: '',
    received: [],
    faults: [],
    reply: 'Hello from the fake upstream!',
    cancelledStreams: 0,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      state.received.push({
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        text,
      });
      const fault = state.faults.shift();
      res.on('close', () => {
        if (!res.writableFinished) state.cancelledStreams += 1;
      });
      if (fault?.kind === 'delay') {
        setTimeout(() => route(req.url ?? '', body, res, state), fault.ms);
        return;
      }
      if (fault?.kind === 'hold') {
        void fault.until.then(() => route(req.url ?? '', body, res, state));
        return;
      }
      if (fault && applyFault(fault, res)) return;
      if (fault && isHostileFault(fault)) {
        return applyHostileFault(fault, { headers: req.headers, text, stream: body.stream === true }, res);
      }
      route(req.url ?? '', body, res, state, fault);
    });
  });
  const listening = await listenLoopback(server);
  state.url = `${listening.origin}/v1`;
  state.close = listening.close;
  return state;
}

/** Faults that replace the whole answer; returns true when handled. */
function applyFault(fault: Fault, res: ServerResponse): boolean {
  switch (fault.kind) {
    case 'status':
      res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers });
      res.end(
        JSON.stringify(fault.body ?? { error: { message: `fake status ${fault.status}`, type: 'fake' } }),
      );
      return true;
    case 'hang':
      return true;
    case 'invalid-json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "chatcmpl-broken", "choices": [');
      return true;
    default:
      return false;
  }
}

function route(
  path: string,
  body: Record<string, unknown>,
  res: ServerResponse,
  state: FakeUpstream,
  fault?: Fault,
) {
  const model = typeof body.model === 'string' ? body.model : 'unknown';
  const toolCalls = toolCallsFor(body, state);
  const extra = {
    finishReason: fault?.kind === 'finish' ? fault.reason : state.finishReason,
    reasoningContent: state.reasoningContent,
  };
  if (path.endsWith('/chat/completions')) {
    if (body.stream === true) return streamChat(res, model, state.reply, body, fault, toolCalls, extra);
    const completion = chatCompletion(model, state.reply, toolCalls, extra);
    if (fault?.kind === 'no-usage') Reflect.deleteProperty(completion, 'usage');
    return json(res, completion);
  }
  if (path.endsWith('/responses/compact')) return json(res, compactionObject(body));
  if (path.endsWith('/responses')) {
    const calls = state.responsesToolCalls ? (toolCalls ?? []) : [];
    const status = state.finishReason === 'length' ? 'incomplete' : 'completed';
    if (body.stream === true) {
      return streamResponses(res, {
        model,
        reply: state.reply,
        toolCalls: calls,
        status,
        sparse: state.sparseResponsesStream,
        fault: isResponsesStreamFault(fault) ? fault : undefined,
      });
    }
    const response = responseObject(model, state.reply, status, calls);
    if (fault?.kind === 'no-usage') Reflect.deleteProperty(response, 'usage');
    return json(res, response);
  }
  if (path.endsWith('/embeddings')) return json(res, embeddingsAnswer(model, body));
  if (path.endsWith('/images/generations')) return json(res, imagesAnswer(body));
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { message: `fake upstream has no ${path}` } }));
}

/** `toolCalls`, unless `toolCallsWhenOffered` and the request offers no tools or ends with a tool result. */
function toolCallsFor(body: Record<string, unknown>, state: FakeUpstream): FakeToolCall[] | undefined {
  if (!state.toolCallsWhenOffered) return state.toolCalls;
  const offered = Array.isArray(body.tools) && body.tools.length > 0;
  const turns = Array.isArray(body.messages) ? body.messages : Array.isArray(body.input) ? body.input : [];
  const last: unknown = turns.at(-1);
  const turn = typeof last === 'object' && last !== null ? (last as Record<string, unknown>) : {};
  const answered = turn.role === 'tool' || turn.type === 'function_call_output';
  return offered && !answered ? state.toolCalls : undefined;
}

function json(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Opt-in answer details (see `FakeUpstream.finishReason` and `reasoningContent`). */
function embeddingsAnswer(model: string, body: Record<string, unknown>) {
  const inputs = Array.isArray(body.input) ? body.input : [body.input];
  const base64 = body.encoding_format === 'base64';
  const data = inputs.map((_input, index) => {
    const vector = [0.25, -0.5, 0.125 + index];
    const floats = Float32Array.from(vector);
    return {
      object: 'embedding',
      index,
      embedding: base64 ? Buffer.from(floats.buffer).toString('base64') : vector,
    };
  });
  return {
    object: 'list',
    data,
    model,
    usage: { prompt_tokens: 5 * inputs.length, total_tokens: 5 * inputs.length },
  };
}

/** A 1x1 transparent PNG. */
export const TINY_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

function imagesAnswer(body: Record<string, unknown>) {
  const n = typeof body.n === 'number' ? body.n : 1;
  return {
    created: 1_763_000_000,
    data: Array.from({ length: n }, () => ({ b64_json: TINY_PNG_BASE64 })),
    usage: {
      input_tokens: 10,
      output_tokens: 272,
      total_tokens: 282,
      input_tokens_details: { text_tokens: 10 },
    },
  };
}
