import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../accounting/usage.js';
import { textMeter } from '../codecs/shared/streamed-text.js';
import { frameText } from '../http/frame.js';
import type { AnswerMeta, StreamScope } from '../pipeline/endpoint.js';
import { openAIStreamText } from '../providers/openai/__fixtures__/chunk-text.js';
import { createOpenAIAdapter } from '../providers/openai/openai-adapter.js';
import {
  chatStreamParts,
  fakeUpstreamClient,
  okBody,
  testProvider,
} from '../test-support/fake-upstream-client.js';
import { chatCompletions } from './chat-completions.js';

const provider = testProvider();
const meta: AnswerMeta = {
  genId: 'gen-1',
  model: 'acme/chat',
  usage: emptyUsage(),
  costNano: 0,
  planningUsage: undefined,
  planningCostNano: 0,
};

/** What the chat endpoint sends for `stream` read in pieces of `pieceBytes`, with or without runs. */
async function framed(stream: string, pieceBytes: number, runs: boolean) {
  const { client } = fakeUpstreamClient(() => okBody(stream, pieceBytes));
  const adapter = createOpenAIAdapter(provider, client);
  const parts = await chatStreamParts(adapter, provider, runs);
  const meter = textMeter(() => undefined);
  const scope = {
    run: { genId: meta.genId },
    model: () => meta.model,
    meter: () => meter,
  } as unknown as StreamScope<never>;
  const framer = chatCompletions.stream?.framer(scope);
  if (!framer) throw new Error('no framer');
  let text = '';
  for (const part of parts) text += frameText(await framer.frame(part, () => meta));
  text += framer.end(() => meta);
  return {
    text,
    runs: parts.filter((part) => part.type === 'deltas').length,
    counted: meter.tokens((counted) => counted.length),
  };
}

const READS = [1, 7, 64, 300, 1_000, 4_096, 16_384, Number.POSITIVE_INFINITY];

describe('chat endpoint: content deltas read in runs', () => {
  const words = Array.from({ length: 300 }, (_, i) => ` word${i}`);

  it.each([
    ['plain words', words],
    [
      'escapes, control characters, unicode, emoji and empty deltas',
      [
        ...words.slice(0, 20),
        '"quoted"',
        'back\\slash',
        'line\nbreak',
        '\u0001',
        'é',
        '😀',
        '',
        ' 中文',
        '</script>',
      ],
    ],
    [
      'obfuscation values, and none',
      words.slice(0, 60).map((content, i) => ({
        content,
        extra: i % 7 === 3 ? { usage: null } : { usage: null, obfuscation: 'a'.repeat(i % 11) },
      })),
    ],
    [
      'an id that changes midway, and a delta of more than 1 KiB',
      [
        ...words.slice(0, 40),
        ...words.slice(40, 80).map((content) => ({ content, id: 'chatcmpl-2' })),
        'x'.repeat(3_000),
        ...words.slice(80, 120),
      ],
    ],
  ])('frames the stream byte for byte as it frames it event by event (%s)', async (_name, deltas) => {
    const stream = openAIStreamText(deltas);
    const expected = await framed(stream, Number.POSITIVE_INFINITY, false);
    expect(expected.runs).toBe(0);
    expect(expected.text).toContain('"id":"gen-1"');
    for (const pieceBytes of READS) {
      const got = await framed(stream, pieceBytes, true);
      expect(got.text).toBe(expected.text);
      expect(got.counted).toBe(expected.counted);
      if (pieceBytes >= 1_000) expect(got.runs).toBeGreaterThan(0);
    }
  });

  it('passes events that only look like content deltas the ordinary way', async () => {
    const lookalikes = [
      ...words.slice(0, 10),
      { content: 'a', extra: { usage: null, obfuscation: 'é' } },
      { content: 'b', extra: { usage: { prompt_tokens: 1 } } },
      ...words.slice(10, 30),
    ];
    const events = openAIStreamText(lookalikes).split('\n\n');
    events[14] = (events[14] as string).replace('data: ', 'data:');
    events[15] = (events[15] as string).replace('data: ', 'id: 7\ndata: ');
    events[16] = (events[16] as string).replace('"}', '" }');
    events[17] = (events[17] as string).replace('"content":"', '"content": "');
    // A field after the data line; then heads that differ from the template in one byte, not in length.
    events[19] = `${events[19] as string}\nid: 8`;
    events[21] = (events[21] as string).replace('"created":1700000000', '"created":1700000001');
    events[23] = (events[23] as string).replace('"fp_1"', '"fp_2"');
    const stream = events.join('\n\n');
    const expected = await framed(stream, Number.POSITIVE_INFINITY, false);
    for (const pieceBytes of READS) {
      const got = await framed(stream, pieceBytes, true);
      expect(got.text).toBe(expected.text);
      if (pieceBytes >= 1_000) expect(got.runs).toBeGreaterThan(1);
    }
  });

  it.each([
    ['an invalid escape', '\\x'],
    ['a raw control character', '\t'],
    ['a raw quote', '"'],
  ])('fails the stream on a content delta with %s, as the event reader does', async (_name, content) => {
    const stream = openAIStreamText(words.slice(0, 40)).replace(
      `"content":"${words[30]}"`,
      `"content":"${content}"`,
    );
    const expected = await framed(stream, Number.POSITIVE_INFINITY, false).catch((error: Error) => error);
    expect(expected).toBeInstanceOf(Error);
    for (const pieceBytes of READS) {
      const got = await framed(stream, pieceBytes, true).catch((error: Error) => error);
      expect(got).toStrictEqual(expected);
    }
  });

  it('frames a recorded tool-call stream as it frames it event by event, without runs', async () => {
    const stream = readFileSync(
      new URL('../providers/openai/__fixtures__/chat-stream-tool-calls.sse', import.meta.url),
      'utf8',
    );
    const expected = await framed(stream, Number.POSITIVE_INFINITY, false);
    expect(expected.text).toContain('tool_calls');
    for (const pieceBytes of READS) {
      const got = await framed(stream, pieceBytes, true);
      expect(got.text).toBe(expected.text);
      expect(got.runs).toBe(0);
    }
  });

  it('frames CRLF streams and invalid UTF-8 as it frames them event by event', async () => {
    const crlf = openAIStreamText(words.slice(0, 50)).replaceAll('\n', '\r\n');
    expect((await framed(crlf, 4_096, true)).text).toBe((await framed(crlf, 4_096, false)).text);
    const invalid = Buffer.from(openAIStreamText(words.slice(0, 50)));
    const at = invalid.indexOf(words[30] as string);
    invalid[at + 1] = 0xff;
    const text = invalid.toString('latin1');
    const { client } = fakeUpstreamClient(() => ({
      status: 200,
      headers: {},
      body: {
        async *[Symbol.asyncIterator]() {
          yield Buffer.from(text, 'latin1');
        },
        bytes: async () => Buffer.from(text, 'latin1'),
        destroy: () => undefined,
      },
    }));
    const adapter = createOpenAIAdapter(provider, client);
    const parts = await chatStreamParts(adapter, provider, true);
    const texts = parts.flatMap((part) =>
      part.type === 'deltas' ? [part.text] : part.type === 'chunk' ? [part.text ?? ''] : [],
    );
    expect(texts.join('')).toContain('\uFFFD');
    expect(texts.join('')).toContain(words[31]);
  });
});
