import { readFileSync } from 'node:fs';
import type { Usage } from '../../src/accounting/usage.js';
import type { JsonObject } from '../../src/json/json.js';
import { createAnthropicAdapter } from '../../src/providers/anthropic/anthropic-adapter.js';
import { createGeminiAdapter } from '../../src/providers/gemini/gemini-adapter.js';
import { createOpenAIAdapter } from '../../src/providers/openai/openai-adapter.js';
import type { ChatStreamPart, ProviderAdapter } from '../../src/providers/provider-adapter.js';
import {
  collect,
  fakeUpstreamClient,
  okBody,
  testCall,
  testProvider,
} from '../../src/test-support/fake-upstream-client.js';

/**
 * Canonical chat answers as each provider kind's adapter makes them from recorded upstream bodies (the
 * adapters' own `__fixtures__`), so that the codecs' conformance is checked on what every kind really
 * produces: OpenAI-compatible chat, Anthropic (signed thinking, `toolu_` ids) and Gemini (thought
 * signatures, ids the adapter makes up).
 */

export type ProviderKind = 'openai' | 'anthropic' | 'gemini';

interface Recording {
  plain: string;
  stream: string;
}

const OPENAI = 'providers/openai/__fixtures__';
const CODEC = 'codecs/responses/__fixtures__';
const ANTHROPIC = 'providers/anthropic/__fixtures__';
const GEMINI = 'providers/gemini/__fixtures__';

/**
 * Per kind, recorded answers (paths under `src/`): one with text, one with tool calls. A `.json` stream is an
 * array of chat chunks, sent as the SSE body OpenAI would send.
 */
export const RECORDINGS: Record<ProviderKind, { text: Recording; tools: Recording }> = {
  openai: {
    text: { plain: `${CODEC}/chat-completion-text.json`, stream: `${CODEC}/chat-chunks-text.json` },
    tools: {
      plain: `${OPENAI}/chat-completion-tool-call.json`,
      stream: `${CODEC}/chat-chunks-interleaved-tool-calls.json`,
    },
  },
  anthropic: {
    text: {
      plain: `${ANTHROPIC}/messages-response-thinking-cached.json`,
      stream: `${ANTHROPIC}/stream-thinking.sse`,
    },
    tools: {
      plain: `${ANTHROPIC}/messages-response-tool-use.json`,
      stream: `${ANTHROPIC}/stream-tool-calls.sse`,
    },
  },
  gemini: {
    text: { plain: `${GEMINI}/generate-content-text.json`, stream: `${GEMINI}/stream-text.sse` },
    tools: {
      plain: `${GEMINI}/generate-content-function-calls.json`,
      stream: `${GEMINI}/stream-function-call.sse`,
    },
  },
};

const REQUEST: JsonObject = { model: 'upstream-model', messages: [{ role: 'user', content: 'Hi' }] };

function adapterFor(kind: ProviderKind, body: string): ProviderAdapter {
  const { client } = fakeUpstreamClient(() => okBody(body));
  const base = 'https://upstream.example.test';
  if (kind === 'anthropic') {
    return createAnthropicAdapter(testProvider({ id: 'a', api: 'anthropic', baseUrl: `${base}/v1` }), client);
  }
  if (kind === 'gemini') {
    return createGeminiAdapter(testProvider({ id: 'g', api: 'gemini', baseUrl: `${base}/v1beta` }), client);
  }
  return createOpenAIAdapter(testProvider({ id: 'o', api: 'openai', baseUrl: `${base}/v1` }), client);
}

const recorded = (path: string): string =>
  readFileSync(new URL(`../../src/${path}`, import.meta.url), 'utf8');

/** A recorded stream as its SSE body: `.sse` as it is, a `.json` array of chat chunks framed as OpenAI does. */
function recordedStream(path: string): string {
  if (!path.endsWith('.json')) return recorded(path);
  const chunks: unknown = JSON.parse(recorded(path));
  const frames = (Array.isArray(chunks) ? chunks : []).map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
  return `${frames.join('')}data: [DONE]\n\n`;
}

/** The canonical chat completion the kind's adapter makes of a recorded answer. */
export async function chatAnswer(
  kind: ProviderKind,
  path: string,
): Promise<{ body: JsonObject; usage: Usage }> {
  const adapter = adapterFor(kind, recorded(path));
  const provider = testProvider({ id: kind });
  const result = await adapter.chat(REQUEST, { ...testCall(provider), upstreamModel: 'upstream-model' });
  return { body: result.body, usage: result.usage };
}

/** The canonical chat stream parts the kind's adapter makes of a recorded event stream. */
export async function chatStreamParts(kind: ProviderKind, path: string): Promise<ChatStreamPart[]> {
  const adapter = adapterFor(kind, recordedStream(path));
  const provider = testProvider({ id: kind });
  const result = await adapter.chatStream(REQUEST, {
    ...testCall(provider),
    upstreamModel: 'upstream-model',
  });
  return collect(result.parts);
}

/** A readable stream of the given parts, as an adapter hands them on. */
export function streamOf<T>(parts: readonly T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}
