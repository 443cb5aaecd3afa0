import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { arrayMember, isRecord, recordMember, stringMember } from '../json/json.js';
import { listenLoopback } from './listen-loopback.js';

/**
 * A fake Gemini API on loopback for end-to-end tests. It speaks the real wire format of
 * `models/{model}:generateContent`, `:streamGenerateContent?alt=sse` (CRLF-framed events, no [DONE]) and
 * `:batchEmbedContents`, answers with a `functionCall` when the request declares functions and its last turn
 * is not a function response, records every request it receives, and can be told to fail.
 */
export interface ReceivedGeminiRequest {
  method: string;
  /** Path and query, e.g. `/v1beta/models/gem-x-001:streamGenerateContent?alt=sse`. */
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export type GeminiFault =
  | { kind: 'status'; status: number; message: string; grpcStatus: string }
  | { kind: 'stream-error'; afterChunks: number };

export interface FakeGeminiUpstream {
  /** Origin of the server; the API base URL is `${url}/v1beta`. */
  url: string;
  received: ReceivedGeminiRequest[];
  /** Faults applied to the next requests, one per request, in order. */
  faults: GeminiFault[];
  /** Text the model "answers". */
  reply: string;
  /** Opt-in: the `finishReason` of every answer (e.g. `MAX_TOKENS`) instead of `STOP`. */
  finishReason?: string;
  /**
   * Opt-in: when set, answers to requests asking for thoughts (`thinkingConfig.includeThoughts`) begin with
   * this thought summary (a `thought: true` part; streamed as its own chunk).
   */
  thought?: string;
  close(): Promise<void>;
}

/** The usage every answer reports: 8 of the 20 prompt tokens cached, 4 thinking tokens beside 6 of text. */
export const FAKE_GEMINI_USAGE = {
  promptTokenCount: 20,
  cachedContentTokenCount: 8,
  candidatesTokenCount: 6,
  thoughtsTokenCount: 4,
  totalTokenCount: 30,
};

/** The thought signature the fake puts on its function calls. */
export const FAKE_THOUGHT_SIGNATURE = 'CiQB0e2KbfakeSignature==';

/** Starts the fake on a free loopback port. */
export async function startFakeGeminiUpstream(): Promise<FakeGeminiUpstream> {
  const state: FakeGeminiUpstream = {
    url: '',
    received: [],
    faults: [],
    reply: 'Hello from the fake Gemini!',
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const parsed: unknown = text ? JSON.parse(text) : {};
      const body = isRecord(parsed) ? parsed : {};
      state.received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      route(req.url ?? '', body, res, state, state.faults.shift());
    });
  });
  const listening = await listenLoopback(server);
  state.url = `${listening.origin}`;
  state.close = listening.close;
  return state;
}

function route(
  path: string,
  body: Record<string, unknown>,
  res: ServerResponse,
  state: FakeGeminiUpstream,
  fault?: GeminiFault,
) {
  if (fault?.kind === 'status') {
    return json(
      res,
      { error: { code: fault.status, message: fault.message, status: fault.grpcStatus } },
      fault.status,
    );
  }
  const match = /^\/v1beta\/models\/([^:/]+):(\w+)(\?alt=sse)?$/.exec(path);
  const model = match?.[1] ?? 'unknown';
  const options = { finishReason: state.finishReason, thought: state.thought };
  if (match?.[2] === 'generateContent') return json(res, answer(model, body, state.reply, true, options));
  if (match?.[2] === 'streamGenerateContent' && match[3]) {
    return stream(res, model, body, state.reply, fault, options);
  }
  if (match?.[2] === 'batchEmbedContents') return json(res, embeddings(body));
  json(res, { error: { code: 404, message: `fake Gemini has no ${path}`, status: 'NOT_FOUND' } }, 404);
}

function json(res: ServerResponse, body: unknown, status = 200): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=UTF-8',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The parts of the request's last turn. */
function lastParts(body: Record<string, unknown>): unknown[] {
  return arrayMember((arrayMember(body, 'contents') ?? []).at(-1), 'parts') ?? [];
}

/** The function the model calls: the first declared one, unless the last turn already answers a call. */
function functionToCall(body: Record<string, unknown>): string | undefined {
  if (lastParts(body).some((part) => recordMember(part, 'functionResponse'))) return undefined;
  const declarations = (arrayMember(body, 'tools') ?? []).flatMap(
    (tool) => arrayMember(tool, 'functionDeclarations') ?? [],
  );
  return stringMember(declarations[0], 'name');
}

/** The model's answer text: after a tool result, it repeats what the tool said. */
function replyText(body: Record<string, unknown>, reply: string): string {
  const result = lastParts(body)
    .map((part) => recordMember(part, 'functionResponse'))
    .find((response) => response !== undefined);
  return result ? `The tool said: ${JSON.stringify(result.response)}` : reply;
}

/** Opt-in answer details (see `FakeGeminiUpstream.finishReason` and `thought`). */
interface AnswerOptions {
  finishReason?: string | undefined;
  thought?: string | undefined;
}

/** The thought summary part, when the fake has one and the request asks for thoughts. */
function thoughtParts(body: Record<string, unknown>, options: AnswerOptions): Record<string, unknown>[] {
  const thinking = recordMember(recordMember(body, 'generationConfig'), 'thinkingConfig');
  return options.thought !== undefined && thinking?.includeThoughts === true
    ? [{ text: options.thought, thought: true }]
    : [];
}

function answer(
  model: string,
  body: Record<string, unknown>,
  reply: string,
  final: boolean,
  options: AnswerOptions = {},
) {
  const name = functionToCall(body);
  const parts = [
    ...thoughtParts(body, options),
    ...(name
      ? [{ functionCall: { name, args: { city: 'Paris' } }, thoughtSignature: FAKE_THOUGHT_SIGNATURE }]
      : [{ text: replyText(body, reply) }]),
  ];
  const finishReason = options.finishReason ?? 'STOP';
  return {
    candidates: [{ content: { parts, role: 'model' }, ...(final ? { finishReason } : {}), index: 0 }],
    usageMetadata: FAKE_GEMINI_USAGE,
    modelVersion: model,
    responseId: 'fakeGeminiResponse01',
  };
}

function stream(
  res: ServerResponse,
  model: string,
  body: Record<string, unknown>,
  reply: string,
  fault?: GeminiFault,
  options: AnswerOptions = {},
) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (event: unknown) => res.write(`data: ${JSON.stringify(event)}\r\n\r\n`);
  if (functionToCall(body)) {
    send(answer(model, body, reply, true, options));
    res.end();
    return;
  }
  const thought = thoughtParts(body, options);
  if (thought.length > 0) {
    const content = { parts: thought, role: 'model' };
    send({ candidates: [{ content, index: 0 }], modelVersion: model, responseId: 'fakeGeminiResponse01' });
  }
  const words = replyText(body, reply).split(/(?<= )/);
  const partial = { promptTokenCount: FAKE_GEMINI_USAGE.promptTokenCount, totalTokenCount: 20 };
  words.forEach((word, index) => {
    if (fault?.kind === 'stream-error' && index === fault.afterChunks) {
      send({
        error: {
          code: 503,
          message: 'The model is overloaded. Please try again later.',
          status: 'UNAVAILABLE',
        },
      });
    }
    if (fault?.kind === 'stream-error' && index >= fault.afterChunks) return;
    const last = index === words.length - 1;
    send({
      candidates: [
        {
          content: { parts: [{ text: word }], role: 'model' },
          ...(last ? { finishReason: options.finishReason ?? 'STOP' } : {}),
          index: 0,
        },
      ],
      usageMetadata: last ? FAKE_GEMINI_USAGE : partial,
      modelVersion: model,
      responseId: 'fakeGeminiResponse01',
    });
  });
  res.end();
}

/** One vector per request; the values are exact in float32, so base64 round trips compare equal. */
function embeddings(body: Record<string, unknown>) {
  const requests = arrayMember(body, 'requests') ?? [];
  return { embeddings: requests.map((_request, index) => ({ values: [0.25, -0.5, 0.125 + index] })) };
}
