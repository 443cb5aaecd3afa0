import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * Content deltas of kilobytes (read from their bytes and passed on without decoding, see plain-delta-bytes.ts)
 * reach every client exactly, whatever they hold: escapes, quotes, control characters, characters outside
 * ASCII, text that looks like the end of a chunk.
 */
let env: TestGateway;
beforeAll(async () => {
  env = await startTestGateway((url) => ({
    ...testConfig(url),
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY], cache: { ttlSeconds: 300 } }],
  }));
  const words = [
    'plain'.repeat(400),
    'é😀"\\\n\t\u0001/'.repeat(300),
    '"},"finish_reason":null}]}'.repeat(80),
    `${'x'.repeat(3_000)}\\`,
    'ü'.repeat(1_100),
    'short',
  ];
  // The fake streams one chunk per word (split after spaces): chunks from 6 bytes to 5 KB.
  env.upstream.reply = Array.from({ length: 12 }, (_v, n) => words[n % words.length]).join(' ');
});
afterAll(async () => env.stop());

const openai = () => new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });

describe('streams of large content deltas', () => {
  it('reach the openai client exactly, with our id and model on every chunk and the usage at the end', async () => {
    const { data: stream, response } = await openai()
      .chat.completions.create({
        model: 'acme/chat-large',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'large chunks, openai' }],
      })
      .withResponse();
    let text = '';
    const ids = new Set<string>();
    const models = new Set<string>();
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      ids.add(chunk.id);
      models.add(chunk.model);
      usage = chunk.usage ?? usage;
    }
    expect(text).toBe(env.upstream.reply);
    expect([...ids]).toEqual([response.headers.get('x-generation-id')]);
    expect([...models]).toEqual(['acme/chat-large']);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
  });

  it('pass on every other large event too: tool-call fragments of kilobytes and the events after them', async () => {
    // Each call's arguments come in two fragments of about 2.5 KB: events the byte path declines.
    const args = (n: number) => JSON.stringify({ query: `${n}:${'long argument é '.repeat(300)}` });
    env.upstream.toolCalls = [
      { id: 'call_1', name: 'search', arguments: args(1) },
      { id: 'call_2', name: 'search', arguments: args(2) },
    ];
    try {
      const stream = await openai().chat.completions.create({
        model: 'acme/chat-large',
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: 'user', content: 'large tool calls' }],
        tools: [{ type: 'function', function: { name: 'search', parameters: { type: 'object' } } }],
      });
      const calls: { id?: string; arguments: string }[] = [];
      let finishReason: string | null | undefined;
      let usage: OpenAI.CompletionUsage | undefined | null;
      for await (const chunk of stream) {
        for (const call of chunk.choices[0]?.delta.tool_calls ?? []) {
          calls[call.index] ??= { arguments: '' };
          const seen = calls[call.index] as { id?: string; arguments: string };
          seen.id ??= call.id;
          seen.arguments += call.function?.arguments ?? '';
        }
        finishReason = chunk.choices[0]?.finish_reason ?? finishReason;
        usage = chunk.usage ?? usage;
      }
      expect(calls).toEqual([
        { id: 'call_1', arguments: args(1) },
        { id: 'call_2', arguments: args(2) },
      ]);
      expect(finishReason).toBe('tool_calls');
      expect(usage?.completion_tokens).toBeGreaterThan(0);
    } finally {
      env.upstream.toolCalls = undefined;
    }
  });

  it('are cached and answered again from the cache with the same text', async () => {
    const ask = async () => {
      const { data: stream, response } = await openai()
        .chat.completions.create({
          model: 'acme/chat-large',
          stream: true,
          messages: [{ role: 'user', content: 'large chunks, cached' }],
        })
        .withResponse();
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      return { text, cache: response.headers.get('x-gateway-cache') };
    };
    const first = await ask();
    expect(first).toEqual({ text: env.upstream.reply, cache: 'miss' });
    expect(await ask()).toEqual({ text: env.upstream.reply, cache: 'hit' });
  });

  it('are translated for the Messages ingress exactly', async () => {
    const client = new Anthropic({
      apiKey: TEST_KEY,
      baseURL: env.baseURL.replace(/\/v1$/, ''),
      maxRetries: 0,
    });
    const stream = client.messages.stream({
      model: 'acme/chat-large',
      max_tokens: 4096,
      messages: [{ role: 'user', content: 'large chunks, messages' }],
    });
    expect(await stream.finalText()).toBe(env.upstream.reply);
  });

  it('are translated for the Gemini ingress exactly', async () => {
    const genai = new GoogleGenAI({
      apiKey: TEST_KEY,
      httpOptions: { baseUrl: env.baseURL.replace(/\/v1$/, '') },
    });
    const stream = await genai.models.generateContentStream({
      model: 'acme/chat-large',
      contents: 'large chunks, gemini',
    });
    let text = '';
    for await (const chunk of stream) text += chunk.text ?? '';
    expect(text).toBe(env.upstream.reply);
  });

  it('a client that leaves mid-stream is billed the tokens of the large deltas it was streamed', async () => {
    env.upstream.faults.push({ kind: 'endless-stream', intervalMs: 5, content: 'ab '.repeat(700) });
    const controller = new AbortController();
    const response = await fetch(`${env.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'acme/chat-large',
        stream: true,
        messages: [{ role: 'user', content: 'large chunks, leaving' }],
      }),
      signal: controller.signal,
    });
    const genId = response.headers.get('x-generation-id') ?? '';
    const reader = response.body?.getReader();
    let seen = '';
    while ((seen.match(/"content":"ab ab/g) ?? []).length < 5) {
      const next = await reader?.read();
      if (!next || next.done) throw new Error('the stream ended');
      seen += new TextDecoder().decode(next.value);
    }
    controller.abort();
    const record = await recordOf(genId);
    expect(record.status).toBe('cancelled');
    // At least five deltas of 700 "ab " (about 700 tokens each) were streamed; counted from their bytes.
    expect(record.outputTokens).toBeGreaterThanOrEqual(4 * 700);
    expect(record.costNanoUsd).toBeGreaterThan(0);
  });
});

async function recordOf(
  genId: string,
): Promise<{ status: string; outputTokens: number; costNanoUsd: number }> {
  for (;;) {
    const response = await fetch(`${env.baseURL}/generation/${genId}`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    if (response.status === 200) return ((await response.json()) as { data: never }).data;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
