import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyUsage, type Usage } from '../../accounting/usage.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import {
  collect,
  fakeUpstreamClient,
  okBody,
  testCall,
  testProvider,
} from '../../test-support/fake-upstream-client.js';
import type { ChatStreamPart } from '../provider-adapter.js';
import { createAnthropicAdapter } from './anthropic-adapter.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const provider = testProvider({
  id: 'claude-cloud',
  api: 'anthropic',
  baseUrl: 'https://api.anthropic.test/v1',
});
const REQUEST = { model: 'claude-sonnet-4-5-20250929', messages: [{ role: 'user', content: 'Hi' }] };

/** Streams a recorded SSE body through the adapter, delivered in reads of `pieceBytes` bytes. */
async function streamOf(sse: string, pieceBytes?: number) {
  const { client, requests } = fakeUpstreamClient(() => okBody(sse, pieceBytes));
  const result = await createAnthropicAdapter(provider, client).chatStream(REQUEST, testCall(provider));
  return { parts: await collect(result.parts), requests, warnings: result.warnings };
}

const chunks = (parts: ChatStreamPart[]): JsonObject[] =>
  parts.flatMap((part) => (part.type === 'chunk' ? [part.chunk] : []));
const choiceOf = (chunk: JsonObject) => arrayMember(chunk, 'choices')?.[0];
const deltaOf = (chunk: JsonObject) => recordMember(choiceOf(chunk), 'delta') ?? {};
const joined = (parts: ChatStreamPart[], key: string) =>
  chunks(parts)
    .map((chunk) => stringMember(deltaOf(chunk), key) ?? '')
    .join('');
const usageOf = (parts: ChatStreamPart[]): Usage | undefined =>
  parts.flatMap((part) => (part.type === 'usage' ? [part.usage] : []))[0];
const finishReasons = (parts: ChatStreamPart[]) =>
  chunks(parts).flatMap((chunk) => stringMember(choiceOf(chunk), 'finish_reason') ?? []);

/** Parts without the chunks' `created` (the clock may tick between two runs). */
const withoutCreated = (parts: ChatStreamPart[]) =>
  parts.map((part) => (part.type === 'chunk' ? { ...part, chunk: { ...part.chunk, created: 0 } } : part));

/** Tool calls assembled from their deltas by index, as a client does. */
function assembledToolCalls(parts: ChatStreamPart[]) {
  const calls: { id?: unknown; name?: unknown; arguments: string }[] = [];
  for (const chunk of chunks(parts)) {
    for (const call of arrayMember(deltaOf(chunk), 'tool_calls') ?? []) {
      if (!isRecord(call) || typeof call.index !== 'number') continue;
      const entry = calls[call.index] ?? { arguments: '' };
      calls[call.index] = entry;
      const fn = recordMember(call, 'function');
      if (call.id !== undefined) entry.id = call.id;
      if (fn?.name !== undefined) entry.name = fn.name;
      entry.arguments += stringMember(fn, 'arguments') ?? '';
    }
  }
  return calls;
}

/** Messages stream events as SSE, each with its `event:` line. */
const events = (list: JsonObject[]) =>
  list.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');
const messageStart = (usage: JsonObject): JsonObject => ({
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-x', content: [], usage },
});

describe('Anthropic stream translation', () => {
  it('streams text as chunks, role first, ignoring ping, then the finish reason and the usage', async () => {
    const { parts, requests } = await streamOf(fixture('stream-text.sse'));
    const base = {
      id: 'msg_01XFDUDYJgAACzvnptvVoYEL',
      object: 'chat.completion.chunk',
      created: expect.any(Number),
      model: 'claude-sonnet-4-5-20250929',
    };
    const choice = (delta: JsonObject, finish: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    });
    expect(parts).toEqual([
      { type: 'chunk', chunk: choice({ role: 'assistant', content: 'Hello' }) },
      { type: 'chunk', chunk: choice({ content: '! How can I help you today?' }) },
      { type: 'chunk', chunk: choice({}, 'stop') },
      { type: 'usage', usage: { ...emptyUsage(), inputTokens: 25, outputTokens: 12 } },
    ]);
    expect(requests[0]?.json).toMatchObject({ stream: true, max_tokens: 4096 });
  });

  it('streams two tool calls whose argument fragments assemble whole, indexed from 0', async () => {
    const { parts } = await streamOf(fixture('stream-tool-calls.sse'));
    expect(joined(parts, 'content')).toBe('Checking both cities.');
    expect(assembledToolCalls(parts)).toEqual([
      {
        id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
        name: 'get_weather',
        arguments: '{"city": "Paris", "unit": "celsius"}',
      },
      {
        id: 'toolu_01Pz4kS9bQhXf2m8VnLr3cTd',
        name: 'get_weather',
        arguments: '{"city": "Berlin", "unit": "celsius"}',
      },
      { id: 'toolu_01Hq7wEr2tYu8iOp3aSd4fGh', name: 'get_time', arguments: '{}' },
    ]);
    const firstToolDelta = chunks(parts)
      .map(deltaOf)
      .find((delta) => delta.tool_calls !== undefined);
    expect(firstToolDelta).toEqual({
      tool_calls: [
        {
          index: 0,
          id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
          type: 'function',
          function: { name: 'get_weather', arguments: '' },
        },
      ],
    });
    expect(finishReasons(parts)).toEqual(['tool_calls']);
    expect(usageOf(parts)).toEqual({
      ...emptyUsage(),
      inputTokens: 728,
      outputTokens: 89,
      cachedInputTokens: 256,
    });
  });

  it('streams thinking as reasoning_content and counts cache writes in the input', async () => {
    const { parts } = await streamOf(fixture('stream-thinking.sse'));
    expect(joined(parts, 'reasoning_content')).toBe(
      'I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\n\n1071 = 2 × 462 + 147\n462 = 3 × 147 + 21\n147 = 7 × 21 + 0',
    );
    expect(joined(parts, 'content')).toBe('The greatest common divisor of 1071 and 462 is **21**.');
    expect(deltaOf(chunks(parts)[0] ?? {}).role).toBe('assistant');
    expect(usageOf(parts)).toEqual({
      ...emptyUsage(),
      inputTokens: 1109,
      outputTokens: 178,
      cacheWriteTokens: 1024,
    });
  });

  // Bug (compat cell messages|anthropic|reasoning-tools): signature_delta was ignored, so a streamed answer
  // carried no signature and its thinking could not be sent back on the next tool-use turn.
  it('sends each thinking block whole, with its signature, as delta.thinking_blocks when it stops', async () => {
    const { parts } = await streamOf(fixture('stream-thinking.sse'));
    const blocks = chunks(parts).flatMap((chunk) => arrayMember(deltaOf(chunk), 'thinking_blocks') ?? []);
    expect(blocks).toEqual([
      {
        type: 'thinking',
        thinking: joined(parts, 'reasoning_content'),
        signature: expect.stringMatching(/^EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds4NLWGRTbEPo/),
      },
    ]);
    // The block arrives after its text and before the answer text.
    const members = chunks(parts).map((chunk) => Object.keys(deltaOf(chunk)).join(','));
    expect(members.indexOf('thinking_blocks')).toBe(members.lastIndexOf('reasoning_content') + 1);
    expect(members.indexOf('thinking_blocks')).toBeLessThan(members.indexOf('content'));
  });

  it('sends a redacted_thinking block whole as delta.thinking_blocks', async () => {
    const { parts } = await streamOf(fixture('stream-redacted-thinking.sse'));
    const blocks = chunks(parts).flatMap((chunk) => arrayMember(deltaOf(chunk), 'thinking_blocks') ?? []);
    expect(blocks).toEqual([
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
    ]);
    expect(joined(parts, 'reasoning_content')).toBe('');
    expect(joined(parts, 'content')).toBe('Here is the answer.');
  });

  // Bug (compat cell messages|anthropic|stop): the streamed stop sequence was dropped as well.
  it('puts the stop sequence that ended the answer on the finish chunk as matched_stop', async () => {
    const sse = fixture('stream-text.sse').replace(
      '"stop_reason":"end_turn","stop_sequence":null',
      '"stop_reason":"stop_sequence","stop_sequence":"END"',
    );
    const { parts } = await streamOf(sse);
    const finish = chunks(parts).find((chunk) => stringMember(choiceOf(chunk), 'finish_reason'));
    expect(choiceOf(finish ?? {})).toMatchObject({ finish_reason: 'stop', matched_stop: 'END' });
  });

  it.each([
    'stream-text.sse',
    'stream-tool-calls.sse',
    'stream-thinking.sse',
    'stream-redacted-thinking.sse',
  ])('gives the same parts for %s whatever the network read boundaries', async (name) => {
    const whole = await streamOf(fixture(name));
    for (const pieceBytes of [1, 2, 3, 7, 13, 64, 333]) {
      const split = await streamOf(fixture(name), pieceBytes);
      expect(withoutCreated(split.parts)).toEqual(withoutCreated(whole.parts));
    }
  });

  it('turns a mid-stream error event into a retryable upstream error after the parts before it', async () => {
    const { client } = fakeUpstreamClient(() => okBody(fixture('stream-error.sse'), 17));
    const result = await createAnthropicAdapter(provider, client).chatStream(REQUEST, testCall(provider));
    const received: ChatStreamPart[] = [];
    const reader = result.parts.getReader();
    const error = await (async () => {
      for (;;) {
        const next = await reader.read();
        if (next.done) return undefined;
        received.push(next.value);
      }
    })().catch((thrown: unknown) => thrown);
    expect(joined(received, 'content')).toBe('Once upon a time');
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      status: 502,
      type: 'upstream_error',
      retryable: true,
      message: 'Provider claude-cloud failed mid-stream: Overloaded',
      provider: 'claude-cloud',
      upstreamType: 'overloaded_error',
    });
  });

  it('keeps the counts so far for a stream cut short: message_delta raises them, never lowers them', async () => {
    const sse = events([
      messageStart({ input_tokens: 30, cache_read_input_tokens: 5, output_tokens: 1 }),
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'content_block_stop', index: 0 },
      // A compatible server's zeros: cumulative counts cannot go down.
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 50 },
      },
    ]);
    const { client } = fakeUpstreamClient(() => okBody(sse));
    const result = await createAnthropicAdapter(provider, client).chatStream(REQUEST, testCall(provider));
    expect(result.usageSoFar?.()).toBeUndefined();
    const error = await collect(result.parts).catch((thrown: unknown) => thrown);
    expect((error as GatewayError).message).toContain('ended before message_stop');
    expect(result.usageSoFar?.()).toEqual({
      ...emptyUsage(),
      inputTokens: 35,
      outputTokens: 50,
      cachedInputTokens: 5,
    });
    const whole = await streamOf(`${sse}event: message_stop\ndata: {"type":"message_stop"}\n\n`);
    expect(usageOf(whole.parts)).toEqual(result.usageSoFar?.());
  });

  it('takes the input of a tool call from content_block_start when no fragment follows', async () => {
    const { parts } = await streamOf(
      events([
        messageStart({ input_tokens: 3, output_tokens: 1 }),
        {
          type: 'content_block_start',
          index: 0,
          content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
        },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 9 } },
        { type: 'message_stop' },
      ]),
    );
    expect(assembledToolCalls(parts)).toEqual([
      { id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
  });

  it('fails a stream that ends before message_stop', async () => {
    const sse = fixture('stream-text.sse');
    const cut = sse.slice(0, sse.indexOf('event: message_delta'));
    const error = await streamOf(cut).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).message).toContain('ended before message_stop');
    expect((error as GatewayError).retryable).toBe(true);
  });
});
