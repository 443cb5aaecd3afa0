import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { arrayMember, isRecord, recordMember } from '../../json/json.js';
import {
  collect,
  fakeUpstreamClient,
  okBody,
  testCall,
  testProvider,
} from '../../test-support/fake-upstream-client.js';
import type { ChatStreamPart } from '../provider-adapter.js';
import { createGeminiAdapter } from './gemini-adapter.js';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
const provider = testProvider({ id: 'gem', api: 'gemini', baseUrl: 'https://gemini.example.test/v1beta' });
const body = { model: 'gemini-2.5-flash', messages: [{ role: 'user', content: 'Capital of France?' }] };

/** Opens a stream over `sse`, delivered in reads of `pieceBytes` bytes. */
async function openStream(sse: string, pieceBytes?: number, model = 'gemini-2.5-flash') {
  const { client, requests } = fakeUpstreamClient(() => okBody(sse, pieceBytes));
  const adapter = createGeminiAdapter(provider, client);
  const result = await adapter.chatStream(body, { ...testCall(provider), upstreamModel: model });
  return { result, requests };
}

const chunks = (parts: ChatStreamPart[]) =>
  parts.flatMap((part) => (part.type === 'chunk' ? [part.chunk] : []));
const deltas = (parts: ChatStreamPart[]) =>
  chunks(parts).map((chunk) => arrayMember(chunk, 'choices')?.[0] ?? {});

describe('Gemini stream: translation to chat chunks', () => {
  it('keeps a chunk with code execution parts whole: one delta, the parts as sent in extra_content', async () => {
    const parts = [
      { text: 'Let me run it. ' },
      { executableCode: { language: 'PYTHON', code: 'print(1 + 1)' } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '2\n' } },
      { text: 'It is 2.' },
    ];
    const event = (members: object) =>
      `data: ${JSON.stringify({ candidates: [{ index: 0, ...members }] })}\r\n\r\n`;
    const sse = event({ content: { role: 'model', parts } }) + event({ finishReason: 'STOP' });
    const { result } = await openStream(sse);
    expect(deltas(await collect(result.parts))).toEqual([
      {
        index: 0,
        delta: {
          role: 'assistant',
          content: 'Let me run it. It is 2.',
          extra_content: { google: { parts } },
        },
        finish_reason: null,
      },
      { index: 0, delta: {}, finish_reason: 'stop' },
    ]);
    expect(result.warnings).toEqual([
      'Gemini answered with executableCode parts, which chat completions cannot carry: they are in extra_content.google.parts (the Gemini ingress relays them)',
      'Gemini answered with codeExecutionResult parts, which chat completions cannot carry: they are in extra_content.google.parts (the Gemini ingress relays them)',
    ]);
  });

  // Bug: the warning that the parts are not carried reached the Gemini ingress's clients, who get them whole.
  it('warns of no such part when the client gets the parts whole (relaysGeminiParts)', async () => {
    const parts = [{ executableCode: { language: 'PYTHON', code: 'print(1 + 1)' } }, { text: 'It is 2.' }];
    const sse = `data: ${JSON.stringify({ candidates: [{ index: 0, content: { role: 'model', parts }, finishReason: 'STOP' }] })}\r\n\r\n`;
    const { client } = fakeUpstreamClient(() => okBody(sse));
    const call = { ...testCall(provider), upstreamModel: 'gemini-2.5-flash', relaysGeminiParts: true };
    const result = await createGeminiAdapter(provider, client).chatStream(body, call);
    expect(deltas(await collect(result.parts))[0]).toMatchObject({
      delta: { extra_content: { google: { parts } } },
    });
    expect(result.warnings).toEqual([]);
  });

  it('streams thoughts, text, the finish reason and the last usage', async () => {
    const { result, requests } = await openStream(fixture('stream-text.sse'));
    const parts = await collect(result.parts);
    expect(requests[0]?.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(deltas(parts)).toEqual([
      {
        index: 0,
        delta: {
          role: 'assistant',
          reasoning_content: '**Recalling the capital**\n\nParis is the capital of France.',
        },
        finish_reason: null,
      },
      { index: 0, delta: { content: 'The capital of France' }, finish_reason: null },
      { index: 0, delta: { content: ' is Paris — “la Ville Lumière”.' }, finish_reason: null },
      { index: 0, delta: {}, finish_reason: 'stop' },
    ]);
    expect(chunks(parts)[0]).toMatchObject({
      id: 'chatcmpl-3brXaL2NFcO_kdUPqsWL4Aw',
      object: 'chat.completion.chunk',
      model: 'gemini-2.5-flash',
    });
    expect(parts.at(-1)).toEqual({
      type: 'usage',
      usage: expect.objectContaining({ inputTokens: 9, outputTokens: 13 + 25, reasoningTokens: 25 }),
    });
    expect(result.warnings).toEqual([]);
  });

  it('gives the same parts whatever byte boundaries the reads fall on', async () => {
    const sse = fixture('stream-text.sse');
    const whole = await collect((await openStream(sse)).result.parts);
    const strip = (parts: ChatStreamPart[]) => JSON.stringify(parts).replace(/"created":\d+/g, '');
    for (const pieceBytes of [1, 2, 3, 5, 7, 64, 301]) {
      const split = await collect((await openStream(sse, pieceBytes)).result.parts);
      expect(strip(split), `reads of ${pieceBytes} bytes`).toBe(strip(whole));
    }
  });

  it('sends each function call whole, with a running index and its thought signature', async () => {
    const { result } = await openStream(fixture('stream-function-call.sse'), 11, 'gemini-3-flash-preview');
    const parts = await collect(result.parts);
    const all = deltas(parts);
    expect(all[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: "I'll look that up." },
      finish_reason: null,
    });
    expect(all[1]).toMatchObject({
      index: 0,
      finish_reason: null,
      delta: {
        tool_calls: [
          {
            index: 0,
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
            extra_content: { google: { thought_signature: 'CiQB0e2Kb7x9aQxXvB8s1lJxJm3m6QbR' } },
          },
          {
            index: 1,
            type: 'function',
            function: { name: 'get_time', arguments: '{"timezone":"Europe/Paris"}' },
          },
        ],
      },
    });
    const calls = (arrayMember(recordMember(all[1], 'delta'), 'tool_calls') ?? []).filter(isRecord);
    expect(calls.map((call) => call.id)).toEqual([
      expect.stringMatching(/^call_/),
      expect.stringMatching(/^call_/),
    ]);
    expect(all[2]).toEqual({ index: 0, delta: {}, finish_reason: 'tool_calls' });
    expect(parts.at(-1)).toMatchObject({
      type: 'usage',
      usage: { inputTokens: 71, outputTokens: 79, reasoningTokens: 48 },
    });
  });

  it('fails with a retryable upstream error on an error event mid-stream, after what came before', async () => {
    const { result } = await openStream(fixture('stream-error.sse'), 9);
    const reader = result.parts.getReader();
    const first = await reader.read();
    expect(first.value).toMatchObject({
      type: 'chunk',
      chunk: { choices: [{ delta: { content: 'Once upon a time' } }] },
    });
    const error = await reader.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 502, type: 'upstream_error', retryable: true });
    expect((error as Error).message).toBe(
      'Provider gem failed mid-stream: The model is overloaded. Please try again later.',
    );
  });

  it('fails a stream that ends before Gemini finished its answer', async () => {
    const cut = fixture('stream-text.sse').split('\r\n\r\n').slice(0, 2).join('\r\n\r\n');
    const error = await collect((await openStream(cut)).result.parts).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, retryable: true });
    expect((error as Error).message).toContain('the stream ended before Gemini finished its answer');
  });

  it('keeps the last usageMetadata so far, for a stream cut short', async () => {
    const cut = fixture('stream-text.sse').split('\r\n\r\n').slice(0, 2).join('\r\n\r\n');
    const { result } = await openStream(cut);
    expect(result.usageSoFar?.()).toBeUndefined();
    const error = await collect(result.parts).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(GatewayError);
    expect(result.usageSoFar?.()).toMatchObject({
      inputTokens: 9,
      outputTokens: 4 + 25,
      reasoningTokens: 25,
    });
  });

  it('fails a blocked prompt with a 400 before any chunk', async () => {
    const blocked = `data: ${fixture('generate-content-prompt-blocked.json').replace(/\s*\n\s*/g, '')}\r\n\r\n`;
    const error = await collect((await openStream(blocked)).result.parts).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'Gemini blocked the prompt (PROHIBITED_CONTENT).',
    });
  });
});
