// A fake OpenAI upstream on node:http, as cheap as we can make it, so that the benchmark measures the proxy
// in front of it rather than the upstream. Every response is precomputed at start-up.
//
//   POST /v1/chat/completions   non-stream: one fixed chat.completion with usage
//                               stream: true: role delta, 20 content deltas, finish_reason chunk, a usage chunk
//                               when stream_options.include_usage is true, then `data: [DONE]`; one write per
//                               event, no delays
//                               stream: true with LONG_STREAM_MARKER in the body (in the user message of the
//                               `stream-long` kind): the same with 250 one-token content deltas, usage
//                               completion_tokens 250
//                               stream: true with PACED_STREAM_MARKER (the `stream-paced` kind): 100 one-token
//                               content deltas paced as a model sends them, one write every PACE_MS (or
//                               every --pace-ms=N)
//   POST /v1/embeddings         one fixed 256-dimension embedding; `encoding_format: "base64"` answers the same
//                               vector as base64 little-endian float32
//
// Run as a process: `node bench/fake-upstream.mjs [--port=0] [--pace-ms=5]` prints `{"port":N}` on stdout once
// listening, and exits when its stdin closes (so it never outlives the benchmark).
import http from 'node:http';
import { LONG_STREAM_MARKER, PACE_MS, PACED_STREAM_MARKER, PACED_TOKENS } from './bench-requests.mjs';
import { exitWhenParentGoes, isMain, printReady, readFlag } from './child-process-protocol.mjs';

const CREATED = 1_767_225_600;
const CONTENT_PIECES = [
  'Bench',
  'marks',
  ' measure',
  ' what',
  ' you',
  ' ask',
  ',',
  ' not',
  ' what',
  ' you',
  ' mean',
  ';',
  ' so',
  ' ask',
  ' for',
  ' the',
  ' tail',
  ',',
  ' not',
  ' the mean.',
];
const USAGE = { prompt_tokens: 24, completion_tokens: CONTENT_PIECES.length, total_tokens: 44 };
// One token each, cycled to make the 250 deltas of the long stream: short words with leading spaces, as a
// tokenizer would cut an ordinary answer.
const LONG_WORDS = [
  ' A',
  ' gateway',
  ' benchmark',
  ' should',
  ' report',
  ' the',
  ' added',
  ' latency',
  ' at',
  ' the',
  ' median',
  ' and',
  ' the',
  ' tail',
  ',',
  ' the',
  ' time',
  ' to',
  ' first',
  ' token',
  ',',
  ' the',
  ' throughput',
  ' per',
  ' core',
  ' and',
  ' the',
  ' memory',
  ' it',
  ' holds',
  ' under',
  ' load',
  '.',
];
const LONG_TOKENS = 250;
// The answer's first token has no leading space.
const LONG_PIECES = Array.from({ length: LONG_TOKENS }, (_, i) =>
  i === 0 ? LONG_WORDS[0].trimStart() : LONG_WORDS[i % LONG_WORDS.length],
);
const LONG_USAGE = { prompt_tokens: 31, completion_tokens: LONG_TOKENS, total_tokens: 31 + LONG_TOKENS };
const PACED_USAGE = { prompt_tokens: 31, completion_tokens: PACED_TOKENS, total_tokens: 31 + PACED_TOKENS };
const EMBEDDING_DIMENSIONS = 256;

/** Builds every response body once; the request handler only picks one. */
export function buildResponses() {
  const id = 'chatcmpl-bench0000000000000000000000';
  const completion = {
    id,
    object: 'chat.completion',
    created: CREATED,
    model: 'bench-chat',
    system_fingerprint: 'fp_bench',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: CONTENT_PIECES.join(''), refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: {
      ...USAGE,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
  };
  const chunk = (choices, extra = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created: CREATED,
    model: 'bench-chat',
    system_fingerprint: 'fp_bench',
    choices,
    ...extra,
  });
  const sse = (value) => Buffer.from(`data: ${JSON.stringify(value)}\n\n`);
  const events = (pieces) => [
    sse(
      chunk([{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }]),
    ),
    ...pieces.map((content) =>
      sse(chunk([{ index: 0, delta: { content }, logprobs: null, finish_reason: null }])),
    ),
    sse(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }])),
  ];
  const usageOf = (usage) =>
    sse(
      chunk([], {
        usage: {
          ...usage,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
        },
      }),
    );
  const stream = { events: events(CONTENT_PIECES), usage: usageOf(USAGE) };
  const longStream = { events: events(LONG_PIECES), usage: usageOf(LONG_USAGE) };
  const pacedStream = { events: events(LONG_PIECES.slice(0, PACED_TOKENS)), usage: usageOf(PACED_USAGE) };
  const done = Buffer.from('data: [DONE]\n\n');

  const vector = Array.from({ length: EMBEDDING_DIMENSIONS }, (_, i) => Math.fround(Math.sin(i + 1) / 16));
  const floats = new Float32Array(vector);
  const embedding = (value) => ({
    object: 'list',
    data: [{ object: 'embedding', index: 0, embedding: value }],
    model: 'bench-embed',
    usage: { prompt_tokens: 9, total_tokens: 9 },
  });
  return {
    completion: Buffer.from(JSON.stringify(completion)),
    stream,
    longStream,
    pacedStream,
    done,
    embeddingFloat: Buffer.from(JSON.stringify(embedding(vector))),
    embeddingBase64: Buffer.from(
      JSON.stringify(
        embedding(Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength).toString('base64')),
      ),
    ),
    notFound: Buffer.from(
      JSON.stringify({
        error: { message: 'not found', type: 'invalid_request_error', code: null, param: null },
      }),
    ),
  };
}

// JSON escapes every quote inside a string, so these only match real keys (a nested key of the same name would
// match too, which a benchmark request never has). A regex over the raw text is far cheaper than JSON.parse of a
// 1 MB body.
const STREAM_TRUE = /"stream"\s*:\s*true/;
const INCLUDE_USAGE_TRUE = /"include_usage"\s*:\s*true/;
const BASE64_FORMAT = /"encoding_format"\s*:\s*"base64"/;
// Only tested on streamed requests (never on the 1 MiB body). Every target forwards the messages unchanged.
const LONG_STREAM = new RegExp(LONG_STREAM_MARKER);
const PACED_STREAM = new RegExp(PACED_STREAM_MARKER);

const JSON_HEADERS = { 'content-type': 'application/json' };
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };

function sendJson(res, status, body) {
  res.writeHead(status, { ...JSON_HEADERS, 'content-length': body.length });
  res.end(body);
}

function sendStream(res, stream, done, includeUsage) {
  res.writeHead(200, SSE_HEADERS);
  for (const event of stream.events) res.write(event);
  if (includeUsage) res.write(stream.usage);
  res.end(done);
}

/** The same, one event every `paceMs`; stops when the proxy goes away. */
function sendPacedStream(res, stream, done, includeUsage, paceMs) {
  res.writeHead(200, SSE_HEADERS);
  const events = includeUsage ? [...stream.events, stream.usage, done] : [...stream.events, done];
  let next = 0;
  let timer;
  const send = () => {
    const event = events[next++];
    if (next === events.length) res.end(event);
    else {
      res.write(event);
      timer = setTimeout(send, paceMs);
    }
  };
  res.on('close', () => clearTimeout(timer));
  send();
}

/** Creates the fake upstream server (not yet listening); `paceMs` apart the events of the paced stream. */
export function createFakeUpstream({ paceMs = PACE_MS } = {}) {
  const responses = buildResponses();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const url = req.url ?? '';
      if (req.method === 'POST' && url.startsWith('/v1/chat/completions')) {
        const body =
          chunks.length === 1 ? chunks[0].toString('latin1') : Buffer.concat(chunks).toString('latin1');
        if (STREAM_TRUE.test(body)) {
          const usage = INCLUDE_USAGE_TRUE.test(body);
          if (PACED_STREAM.test(body))
            sendPacedStream(res, responses.pacedStream, responses.done, usage, paceMs);
          else {
            const stream = LONG_STREAM.test(body) ? responses.longStream : responses.stream;
            sendStream(res, stream, responses.done, usage);
          }
        } else sendJson(res, 200, responses.completion);
      } else if (req.method === 'POST' && url.startsWith('/v1/embeddings')) {
        const body = Buffer.concat(chunks).toString('latin1');
        sendJson(res, 200, BASE64_FORMAT.test(body) ? responses.embeddingBase64 : responses.embeddingFloat);
      } else {
        sendJson(res, 404, responses.notFound);
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  return server;
}

if (isMain(import.meta.url)) {
  const server = createFakeUpstream({ paceMs: Number(readFlag('pace-ms', String(PACE_MS))) });
  server.listen(Number(readFlag('port', '0')), '127.0.0.1', () =>
    printReady({ port: server.address().port }),
  );
  exitWhenParentGoes();
}
