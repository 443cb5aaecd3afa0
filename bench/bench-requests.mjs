// The requests the benchmark sends, built once per target (targets differ only in model names and headers),
// and the checks that a target's answer has the OpenAI shape before any of its numbers count.

const MESSAGES = [
  { role: 'system', content: 'You are a concise assistant. Answer in one sentence.' },
  { role: 'user', content: 'What should a benchmark of an AI gateway report, in one sentence?' },
];
const ONE_MIB = 1024 * 1024;
/**
 * The phrase in the user message of `stream-long` that makes the fake upstream answer the 250-chunk stream. The
 * messages reach the upstream unchanged through every target, so it is matched there with a regex over the raw
 * body (plain ASCII, nothing JSON would escape).
 */
export const LONG_STREAM_MARKER = 'bench-stream-long';
const LONG_MESSAGES = [
  MESSAGES[0],
  {
    role: 'user',
    content: `What should a benchmark of an AI gateway report? Answer in about two hundred words. (${LONG_STREAM_MARKER})`,
  },
];

/**
 * The phrase that makes the fake upstream answer the paced stream: 100 one-token deltas, one write every few
 * milliseconds, as a model sends them (see fake-upstream.mjs).
 */
export const PACED_STREAM_MARKER = 'bench-stream-paced';
/**
 * Time between two events of the paced stream, ms: 200 tokens a second, in the range of today's fast models,
 * so that every event reaches the proxy in a network read of its own, as from a real model (0.5 s a stream).
 */
export const PACE_MS = 5;
/** Content deltas of the paced stream. */
export const PACED_TOKENS = 100;
const PACED_MESSAGES = [
  MESSAGES[0],
  {
    role: 'user',
    content: `What should a benchmark of an AI gateway report? Answer in about eighty words. (${PACED_STREAM_MARKER})`,
  },
];

/**
 * Kinds of request measured one at a time and under load, in that order. `stream-paced` is measured under
 * load only (PACED_KIND): at concurrency 1 it would measure the pacing.
 */
export const KINDS = ['chat', 'stream', 'stream-long', 'embed', 'big'];
/** The paced stream: probed with the others, measured in a throughput phase of its own. */
export const PACED_KIND = 'stream-paced';
export const KIND_TITLES = {
  chat: 'chat',
  stream: 'chat streamed',
  'stream-long': 'chat streamed, 250 chunks',
  'stream-paced': 'chat streamed, 100 chunks paced as a model sends them',
  embed: 'embeddings',
  big: 'chat, 1 MiB body',
};

function bigMessages() {
  const words = 'the quick brown fox jumps over the lazy dog while the gateway forwards every byte ';
  const frame = JSON.stringify({
    model: '',
    messages: [{ role: 'user', content: '' }],
    max_tokens: 64,
  }).length;
  const length = ONE_MIB - frame - 64;
  return [{ role: 'user', content: words.repeat(Math.ceil(length / words.length)).slice(0, length) }];
}

/** Kinds answered with an SSE stream (TTFB measured, answer checked as a stream). */
export const STREAM_KINDS = ['stream', 'stream-long', 'stream-paced'];

/** `{ chat, stream, 'stream-long', 'stream-paced', embed, big }`, each `{ path, body }` with `body` a Buffer, for the given model names. */
export function buildRequests({ chatModel, embedModel }) {
  const json = (value) => Buffer.from(JSON.stringify(value));
  return {
    chat: {
      path: '/v1/chat/completions',
      body: json({ model: chatModel, messages: MESSAGES, max_tokens: 64 }),
    },
    stream: {
      path: '/v1/chat/completions',
      body: json({
        model: chatModel,
        messages: MESSAGES,
        max_tokens: 64,
        stream: true,
        stream_options: { include_usage: true },
      }),
    },
    'stream-long': {
      path: '/v1/chat/completions',
      body: json({
        model: chatModel,
        messages: LONG_MESSAGES,
        max_tokens: 300,
        stream: true,
        stream_options: { include_usage: true },
      }),
    },
    'stream-paced': {
      path: '/v1/chat/completions',
      body: json({
        model: chatModel,
        messages: PACED_MESSAGES,
        max_tokens: 150,
        stream: true,
        stream_options: { include_usage: true },
      }),
    },
    embed: {
      path: '/v1/embeddings',
      body: json({ model: embedModel, input: 'The quick brown fox jumps over the lazy dog.' }),
    },
    big: {
      path: '/v1/chat/completions',
      body: json({ model: chatModel, messages: bigMessages(), max_tokens: 64 }),
    },
  };
}

/** Returns why an answer is not the OpenAI shape the kind expects, or null when it is. */
export function checkAnswer(kind, status, text) {
  if (status !== 200) return `HTTP ${status}: ${text.slice(0, 300)}`;
  if (STREAM_KINDS.includes(kind)) {
    if (!text.includes('"chat.completion.chunk"'))
      return `no chat.completion.chunk in stream: ${text.slice(0, 200)}`;
    if (!text.includes('data: [DONE]')) return 'stream does not end with data: [DONE]';
    return null;
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  if (kind === 'embed') {
    const first = value?.data?.[0]?.embedding;
    return Array.isArray(first) || typeof first === 'string'
      ? null
      : `no data[0].embedding: ${text.slice(0, 200)}`;
  }
  return typeof value?.choices?.[0]?.message?.content === 'string'
    ? null
    : `no choices[0].message.content: ${text.slice(0, 200)}`;
}
