import { randomBytes } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import type { RequestKind } from '../codecs/request-kind.js';
import type { JsonObject } from '../json/json.js';
import {
  AUDIO_TOKENS,
  countInSlices,
  countPaced,
  countRequestTokens,
  HARD_CUT_CHARS,
  IMAGE_TOKENS,
  lazyTokenCounter,
  loadTokenCounter,
  MESSAGE_TOKENS,
  memoizeCounter,
  REPLY_PRIMING_TOKENS,
} from './count-tokens.js';
import { pacer } from './pace.js';

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

describe('loadTokenCounter', () => {
  it('counts with o200k_base, special-token text as plain text', async () => {
    const count = await loadTokenCounter();
    expect(count('')).toBe(0);
    expect(count('Hello world')).toBe(2);
    expect(count('What is the weather in Paris today?')).toBe(8);
    expect(count('a <|endoftext|> b')).toBe(9);
  });
});

describe('lazyTokenCounter', () => {
  it('loads once, is at hand synchronously after, and tries again a while after a failed load', async () => {
    const count = (text: string) => text.length;
    const load = vi
      .fn<() => Promise<(text: string) => number>>()
      .mockRejectedValueOnce(new Error('unreadable'))
      .mockResolvedValue(count);
    let clock = 0;
    const lazy = lazyTokenCounter(load, { retryMs: 10_000, now: () => clock });
    await expect(lazy.load()).rejects.toThrow('unreadable');
    // Within the retry interval the failure stands: no new read per cut-off stream.
    clock = 9_999;
    expect(lazy.ready()).toBeUndefined();
    await expect(lazy.load()).rejects.toThrow('unreadable');
    expect(load).toHaveBeenCalledTimes(1);
    clock = 10_000;
    const retried = lazy.load();
    expect(lazy.load()).toBe(retried); // one load in flight, however often asked
    expect(await retried).toBe(count);
    expect(lazy.ready()).toBe(count);
    expect(load).toHaveBeenCalledTimes(2);
  });
});

describe('countRequestTokens', () => {
  it.each<{ name: string; kind: RequestKind; request: JsonObject; expected: number }>([
    {
      name: 'one chat message',
      kind: 'chat',
      request: { messages: [{ role: 'user', content: 'Hello world' }] },
      expected: REPLY_PRIMING_TOKENS + MESSAGE_TOKENS + 2,
    },
    {
      name: 'chat text parts, an image and an audio clip',
      kind: 'chat',
      request: {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is the weather in Paris today?' },
              { type: 'image_url', image_url: { url: 'https://example.com/map.png' } },
              { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
              { type: 'file', file: { file_id: 'file-1' } },
            ],
          },
        ],
      },
      expected: REPLY_PRIMING_TOKENS + MESSAGE_TOKENS + 8 + IMAGE_TOKENS + AUDIO_TOKENS,
    },
    {
      name: 'a Responses string input with instructions',
      kind: 'responses',
      request: { instructions: 'Hello world', input: 'What is the weather in Paris today?' },
      expected: REPLY_PRIMING_TOKENS + MESSAGE_TOKENS + 2 + MESSAGE_TOKENS + 8,
    },
  ])('$name', async ({ request, kind, expected }) => {
    expect(countRequestTokens(request, kind, await loadTokenCounter())).toBe(expected);
  });

  it('counts tool calls by name and arguments, tool results, and each tool definition as JSON', async () => {
    const count = await loadTokenCounter();
    const call = {
      id: 'c1',
      type: 'function',
      function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
    };
    const chat = {
      messages: [
        { role: 'user', content: 'What is the weather in Paris today?' },
        { role: 'assistant', content: null, tool_calls: [call] },
        { role: 'tool', tool_call_id: 'c1', content: '18°C and sunny' },
      ],
      tools: [weatherTool],
    };
    const expected =
      REPLY_PRIMING_TOKENS +
      3 * MESSAGE_TOKENS +
      8 +
      count('get_weather {"city":"Paris"}') +
      count('18°C and sunny') +
      count(JSON.stringify(weatherTool));
    expect(countRequestTokens(chat, 'chat', count)).toBe(expected);
    expect(count(JSON.stringify(weatherTool))).toBeGreaterThan(30);
    const responses = {
      input: [
        { role: 'user', content: 'What is the weather in Paris today?' },
        { type: 'function_call', call_id: 'c1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'c1', output: '18°C and sunny' },
      ],
      tools: [{ type: 'function', ...weatherTool.function }],
    };
    expect(countRequestTokens(responses, 'responses', count)).toBe(
      expected - count(JSON.stringify(weatherTool)) + count(JSON.stringify(responses.tools[0])),
    );
  });
});

describe('countPaced', () => {
  /** Texts of many shapes: prose, runs without spaces, runs of spaces, CJK, line breaks, emoji. */
  const pieces = [
    'The lazy dog ',
    'x'.repeat(700),
    ' '.repeat(300),
    '\u4e2d\u6587',
    '\n\n',
    '🙂 ',
    'ab',
    '  ',
  ];
  const randomText = (seed: number, length: number) => {
    let state = seed;
    let text = '';
    while (text.length < length) {
      state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
      text += pieces[state % pieces.length];
    }
    return text;
  };

  it('sums what the tally sums, every text counted as a whole would be, however it is cut', async () => {
    const count = await loadTokenCounter();
    for (let seed = 1; seed <= 12; seed++) {
      const long = randomText(seed, 90_000 + seed * 7_919);
      const request = {
        messages: [
          { role: 'system', content: randomText(seed + 100, 500) },
          { role: 'user', content: long },
          { role: 'assistant', content: 'x'.repeat(70_000 + seed) },
        ],
        tools: [weatherTool],
      };
      const paced = await countPaced((counter) => countRequestTokens(request, 'chat', counter), count);
      expect(paced).toBe(countRequestTokens(request, 'chat', count));
      expect(await countPaced((counter) => counter(long), count)).toBe(count(long));
    }
  });

  it('lets the event loop serve others between pieces of a long text', async () => {
    const count = await loadTokenCounter();
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20_000);
    const seen: string[] = [];
    const other = new Promise<void>((resolve) =>
      setImmediate(() => {
        seen.push('another client');
        resolve();
      }),
    );
    // A pace of 0 ms yields after every piece; another client's work, already waiting, goes first.
    const counting = countPaced((counter) => counter(text), count, pacer(0));
    const tokens = await counting.then((total) => {
      seen.push('counted');
      return total;
    });
    await other;
    expect(tokens).toBe(count(text));
    expect(seen).toEqual(['another client', 'counted']);
    // The pace is asked between pieces of about PACED_CHARS characters.
    let yields = 0;
    const never = () => {
      yields += 1;
      return undefined;
    };
    await countPaced((counter) => counter(text), count, never);
    expect(yields).toBeGreaterThan(text.length / 40_000);
  });
});

describe('memoizeCounter', () => {
  it('tokenizes each distinct text once', () => {
    const count = vi.fn((text: string) => text.length);
    const memo = memoizeCounter(count);
    expect([memo('abc'), memo('abc'), memo('de')]).toEqual([3, 3, 2]);
    expect(count).toHaveBeenCalledTimes(2);
  });
});

describe('countInSlices', () => {
  it('counts prose exactly as a whole and a run without spaces in linear time', async () => {
    const count = await loadTokenCounter();
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(500);
    const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
    expect(count(prose)).toBe(countTokens(prose));
    // 4 MiB without a space: whole, byte-pair encoding would take hours; sliced it is counted at once.
    const run = 'x'.repeat(4 * 1024 * 1024);
    const tokens = count(run);
    expect(tokens).toBeGreaterThan(run.length / 16);
    expect(tokens).toBeLessThan(run.length);
  });
});

describe('countInSlices: no long word reaches the tokenizer', () => {
  /** The longest run of spaces, or of characters other than a space, in `text`. */
  const longestRun = (text: string) =>
    Math.max(0, ...(text.match(/ +|[^ ]+/g) ?? []).map((run) => run.length));

  it.for<[string, string]>([
    ['a word of 5,000 letters between words', `before ${'x'.repeat(5_000)} after`],
    ['5,000 spaces', `a${' '.repeat(5_000)}b`],
    ['a line of 3,000 equals signs', `title\n${'='.repeat(3_000)}\ntext`],
    ['1,500 letters then prose', `${'y'.repeat(1_500)} ${'the lazy dog '.repeat(300)}`],
    ['CJK text without spaces', '\u4e2d\u6587'.repeat(3_000)],
  ])(
    '%s: every piece is the text in order, no run longer than the cut (a space before it aside)',
    ([, text]) => {
      const pieces: string[] = [];
      countInSlices(text, (piece) => {
        pieces.push(piece);
        return 1;
      });
      expect(pieces.join('')).toBe(text);
      for (const piece of pieces)
        expect(longestRun(piece.startsWith(' ') ? piece.slice(1) : piece)).toBeLessThanOrEqual(
          HARD_CUT_CHARS,
        );
    },
  );

  it('keeps what the tokenizer remembers of merged words bounded, whatever words it is given', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const count = await loadTokenCounter();
    count('warm up');
    gc();
    const before = process.memoryUsage().heapUsed;
    // 12,000 distinct words of 200 letters each: the tokenizer's default memory of 100,000 merged words
    // keeps them all (17 MB); bounded, about 3 MB stay.
    const word = () => String.fromCharCode(...randomBytes(200).map((byte) => 97 + (byte % 26)));
    for (let i = 0; i < 12_000; i++) count(`the ${word()} end`);
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(8 * 1024 * 1024);
  });
});
