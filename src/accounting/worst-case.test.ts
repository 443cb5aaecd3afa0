import { describe, expect, it, vi } from 'vitest';
import type { JsonObject } from '../json/json.js';
import { scanJson } from '../json/json-depth.js';
import { noteByteLength } from '../json/known-byte-lengths.js';
import { parseJsonBytes } from '../json/parse-json-bytes.js';
import { compilePricing } from './compile-pricing.js';
import {
  AUDIO_BYTES_PER_TOKEN,
  DEFAULT_OUTPUT_BOUND,
  IMAGE_OUTPUT_TOKEN_BOUND,
  IMAGE_TOKEN_BOUND,
  outputTokenBound,
  worstCaseCostNano,
  worstCaseTokens,
} from './worst-case.js';

const messages = [{ role: 'user', content: 'hi' }];
const longKeysTool = {
  type: 'function',
  function: {
    name: 'f',
    parameters: {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 50 }, (_, i) => [`a_rather_long_property_name_number_${i}`, { type: 'string' }]),
      ),
    },
  },
};

describe('worstCaseTokens', () => {
  it('bug: n was not in the worst case (a $0.01 cap reached $0.40): chat n: 40 multiplies the output', () => {
    const one = worstCaseTokens('chat', { model: 'm', messages, max_tokens: 100 });
    const forty = worstCaseTokens('chat', { model: 'm', messages, max_tokens: 100, n: 40 });
    expect(one.outputTokens).toBe(100);
    expect(forty.outputTokens).toBe(4_000);
    expect(forty.promptTokens).toBe(one.promptTokens);
  });

  it('bug: tool schema keys were not counted (one request cost 5x its cap): every byte counts', () => {
    const bound = worstCaseTokens('chat', { messages, tools: [longKeysTool] }).promptTokens;
    const json = Buffer.byteLength(JSON.stringify([longKeysTool]));
    expect(bound).toBeGreaterThanOrEqual(json);
  });

  it.each([
    [
      'chat response_format',
      'chat',
      { messages, response_format: { type: 'json_schema', json_schema: { schema: longKeysTool } } },
    ],
    [
      'responses text.format',
      'responses',
      { input: 'hi', text: { format: { type: 'json_schema', schema: longKeysTool } } },
    ],
    [
      'responses instructions and tools',
      'responses',
      { input: 'hi', instructions: 'x'.repeat(3000), tools: [longKeysTool] },
    ],
    [
      'messages system and tools',
      'messages',
      { messages, system: 'x'.repeat(3000), tools: [longKeysTool], max_tokens: 10 },
    ],
  ] as const)('counts %s whole', (_name, kind, body) => {
    const bytes = Buffer.byteLength(JSON.stringify(body));
    expect(worstCaseTokens(kind, body).promptTokens).toBeGreaterThanOrEqual(bytes - 20);
  });

  it('uses the model limit, then the default, when the request sets none', () => {
    expect(worstCaseTokens('chat', { messages }, { max_tokens: 16_384 }).outputTokens).toBe(16_384);
    expect(worstCaseTokens('chat', { messages }).outputTokens).toBe(DEFAULT_OUTPUT_BOUND);
    // bug: the smaller of the two was reserved, and a provider that honours max_tokens generated the larger.
    expect(worstCaseTokens('chat', { messages, max_completion_tokens: 7, max_tokens: 9 }).outputTokens).toBe(
      9,
    );
    expect(worstCaseTokens('chat', { messages, max_completion_tokens: 9, max_tokens: 7 }).outputTokens).toBe(
      9,
    );
    expect(worstCaseTokens('responses', { input: 'x', max_output_tokens: 5 }).outputTokens).toBe(5);
    expect(worstCaseTokens('messages', { messages, max_tokens: 12, n: 9 }).outputTokens).toBe(12);
    expect(worstCaseTokens('chat', { messages, max_tokens: 'lots' }).outputTokens).toBe(DEFAULT_OUTPUT_BOUND);
  });

  // Bug: Responses assumed n = 1 and only max_output_tokens, while the chat members a client added were
  // forwarded (n: 128 billed 69× the cap; max_output_tokens 5 reserved beside max_completion_tokens 50000).
  it('bounds Responses by the largest output limit sent, times any n sent', () => {
    const bound = (body: JsonObject) => worstCaseTokens('responses', { input: 'x', ...body }).outputTokens;
    expect(bound({ max_output_tokens: 100, n: 128 })).toBe(12_800);
    expect(bound({ max_output_tokens: 5, max_completion_tokens: 50_000 })).toBe(50_000);
    expect(bound({ max_output_tokens: 5, max_tokens: 70 })).toBe(70);
    expect(bound({ max_output_tokens: 500, max_tokens: 70 })).toBe(500);
    expect(bound({ n: 3 })).toBe(3 * DEFAULT_OUTPUT_BOUND);
    expect(outputTokenBound('responses', { input: 'x', max_tokens: 9, n: 2 })).toBe(18);
  });

  it('counts images by the per-image bound, whatever their encoding', () => {
    const base64 = `data:image/png;base64,${'A'.repeat(4_000_000)}`;
    const chat = worstCaseTokens('chat', {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this' },
            { type: 'image_url', image_url: { url: base64 } },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } },
          ],
        },
      ],
    });
    expect(chat.promptTokens).toBeGreaterThanOrEqual(2 * IMAGE_TOKEN_BOUND);
    expect(chat.promptTokens).toBeLessThan(2 * IMAGE_TOKEN_BOUND + 500);
    const messagesImage = {
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(9) },
    };
    const anthropic = worstCaseTokens('messages', {
      messages: [{ role: 'user', content: [messagesImage] }],
      max_tokens: 1,
    });
    expect(anthropic.promptTokens).toBeGreaterThanOrEqual(IMAGE_TOKEN_BOUND);
    expect(
      worstCaseTokens(
        'responses',
        { input: [{ type: 'input_image', image_url: 'https://x' }] },
        { imageTokens: 10 },
      ).promptTokens,
    ).toBeLessThan(100);
  });

  it('counts embeddings input, token arrays included, with no output', () => {
    const tokens = worstCaseTokens('embeddings', { model: 'e', input: [[1, 2, 3, 4, 5]] });
    expect(tokens.promptTokens).toBeGreaterThanOrEqual(5);
    expect(tokens.outputTokens).toBe(0);
  });

  it('images: n images, each with its output tokens', () => {
    expect(worstCaseTokens('images', { prompt: 'a cat', n: 3 })).toEqual({
      promptTokens: expect.any(Number),
      outputTokens: 3 * IMAGE_OUTPUT_TOKEN_BOUND,
      images: 3,
    });
  });

  it('counts a long string parsed from bytes by the byte length the parser knew, with the same bound', () => {
    // Non-ASCII (2- and 3-byte characters), in a message's content, a content part and an embeddings input.
    const text = 'prose é €, '.repeat(8_000);
    const bodies = [
      { model: 'm', messages: [{ role: 'user', content: text }] },
      { model: 'm', messages: [{ role: 'user', content: [{ type: 'text', text }] }] },
      { model: 'm', input: ['short', text] },
    ];
    for (const body of bodies) {
      const bytes = Buffer.from(JSON.stringify(body));
      const parsed = parseJsonBytes(bytes, scanJson(bytes, 64).longStrings) as Record<string, unknown>;
      const fresh = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      const kind = 'input' in body ? 'embeddings' : 'chat';
      const measured = vi.spyOn(Buffer, 'byteLength');
      const bound = worstCaseTokens(kind, parsed).promptTokens;
      expect(measured.mock.calls.some(([value]) => value === text)).toBe(false);
      measured.mockRestore();
      expect(bound).toBe(worstCaseTokens(kind, fresh).promptTokens);
    }
  });

  it("reads a long parsed file's start from its note: an image data URI counts as media, and no search reads it", () => {
    const image = `data:image/png;base64,${'A'.repeat(200_000)}`;
    const audio = `data:audio/wav;base64,${'A'.repeat(200_000)}`;
    const body = {
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'file', file: { file_data: image, filename: 'a.png' } },
            { type: 'file', file: { file_data: audio, filename: 'a.wav' } },
          ],
        },
      ],
    };
    const bytes = Buffer.from(JSON.stringify(body));
    const parsed = parseJsonBytes(bytes, scanJson(bytes, 64).longStrings) as Record<string, unknown>;
    const searched = vi.spyOn(String.prototype, 'startsWith');
    const bound = worstCaseTokens('chat', parsed).promptTokens;
    expect(searched.mock.contexts.some((context) => String(context).length > 1_000)).toBe(false);
    searched.mockRestore();
    expect(bound).toBe(worstCaseTokens('chat', JSON.parse(bytes.toString('utf8'))).promptTokens);
    const audioTokens = Math.ceil((audio.length * 3) / 4 / AUDIO_BYTES_PER_TOKEN);
    expect(bound).toBeGreaterThanOrEqual(IMAGE_TOKEN_BOUND + audioTokens);
    expect(bound).toBeLessThan(IMAGE_TOKEN_BOUND + audioTokens + 200);
  });

  it('counts text that starts like a data URI by its bytes: the provider bills it as text', () => {
    const text = `data:image/ ${'lorem ipsum '.repeat(20_000)}`;
    const sound = `data:audio/ ${'lorem ipsum '.repeat(20_000)}`;
    for (const content of [text, sound, [{ type: 'text', text }], [{ type: 'text', text: sound }]]) {
      const body = { model: 'm', messages: [{ role: 'user', content }] };
      const bytes = Buffer.from(JSON.stringify(body));
      const parsed = parseJsonBytes(bytes, scanJson(bytes, 64).longStrings) as Record<string, unknown>;
      expect(worstCaseTokens('chat', parsed).promptTokens).toBeGreaterThan(text.length);
      expect(worstCaseTokens('chat', body).promptTokens).toBeGreaterThan(text.length);
    }
  });

  it('measures a noted string again once its holder holds another string', () => {
    const message = { role: 'user', content: 'x'.repeat(70_000) };
    noteByteLength(message, 'content', message.content, 70_000, 'xxxx');
    const before = worstCaseTokens('chat', { messages: [message] }).promptTokens;
    message.content = 'é'.repeat(70_000);
    const after = worstCaseTokens('chat', { messages: [message] }).promptTokens;
    expect(after - before).toBe(70_000);
    // A false note for the very string it holds is believed: the note is the parser's word.
    noteByteLength(message, 'content', message.content, 5, 'éééé');
    expect(worstCaseTokens('chat', { messages: [message] }).promptTokens).toBe(before - 70_000 + 5);
  });

  it('walks a tools array nested 10,000 deep without overflowing the stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 10_000; i += 1) deep = [deep];
    expect(worstCaseTokens('chat', { messages, tools: deep as unknown[] }).promptTokens).toBeGreaterThan(
      20_000,
    );
  });
});

describe('worstCaseCostNano', () => {
  const pricing = compilePricing({
    input: '0.000002',
    output: '0.000008',
    input_cache_write: '0.0000025',
    image: '0.04',
  });

  it('prices the prompt at the highest input price (cache writes) and rounds up', () => {
    expect(worstCaseCostNano({ promptTokens: 1000, outputTokens: 100, images: 1 }, pricing)).toBe(
      1000 * 2500 + 100 * 8000 + 40_000_000,
    );
    const tiny = compilePricing({ input: '0.0000000001' });
    expect(worstCaseCostNano({ promptTokens: 1, outputTokens: 0, images: 0 }, tiny)).toBe(1);
  });

  it('stays a safe integer for absurd bounds', () => {
    const cost = worstCaseCostNano(
      { promptTokens: Number.MAX_SAFE_INTEGER, outputTokens: 1e15, images: 0 },
      pricing,
    );
    expect(cost).toBe(Number.MAX_SAFE_INTEGER);
  });
});
