import { afterEach, describe, expect, it, vi } from 'vitest';
import { LONG_STRING_BYTES, scanJson } from './json-depth.js';
import { hasControlByte, parseJsonBytes } from './parse-json-bytes.js';

const long = (seed: string, length = LONG_STRING_BYTES + 100) =>
  seed.repeat(Math.ceil(length / seed.length)).slice(0, length);

/** What the gateway parses: the scan's long strings, then `parseJsonBytes`. */
const parse = (bytes: Buffer) => parseJsonBytes(bytes, scanJson(bytes, 64).longStrings);

/** The outcome of a parse: its value, or the class of what it threw (and JSON.parse's message). */
function outcome(run: () => unknown): unknown {
  try {
    return { value: run() };
  } catch (error) {
    return { threw: (error as Error).constructor.name, message: (error as Error).message };
  }
}

/** The same outcome as decoding the whole text (fatal UTF-8, BOM dropped) and JSON.parse of it. */
function expectSameAsJsonParse(bytes: Buffer): void {
  const reference = outcome(() => JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)));
  expect(outcome(() => parse(bytes))).toEqual(reference);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('parseJsonBytes', () => {
  it('gives what JSON.parse gives for long strings anywhere in the text', () => {
    const a = long('the quick brown fox ');
    const b = long('jumps over the lazy dog ', 3 * LONG_STRING_BYTES);
    const texts = [
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: a }], max_tokens: 64 }),
      JSON.stringify([a, 1, b, { x: [a, { y: b }] }, null, true, 'short']),
      JSON.stringify(a),
      ` \n\t${JSON.stringify({ a, b })}\r\n `,
      JSON.stringify({ [a]: b }),
      JSON.stringify({ [a]: 1, k: a }),
      JSON.stringify({ a, a2: a, nested: { deep: [[[b]]] } }),
      `{"__proto__":${JSON.stringify(a)},"k":${JSON.stringify(b)}}`,
      `{"k":${JSON.stringify(a)},"k":${JSON.stringify(b)}}`,
    ];
    for (const text of texts) {
      const bytes = Buffer.from(text);
      expectSameAsJsonParse(bytes);
    }
    const proto = parse(Buffer.from(texts[7] as string)) as Record<string, unknown>;
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype);
    expect(Object.hasOwn(proto, '__proto__')).toBe(true);
  });

  it('leaves strings with escapes, control characters or the mark to JSON.parse, with the same result', () => {
    const a = long('plain text ');
    const cases = [
      `{"a":"${long('line\\n')}","b":"${a}"}`,
      `{"a":"${long('quote \\" and \\\\ ')}"}`,
      `{"a":"${long('caf\\u00e9 ')}","b":"${a}"}`,
      `{"a":"${a}","mark":"\\ue000"}`,
      `{"a":"${a}","mark":"\\uE0001"}`,
      `{"mark":"\uE0000","a":"${a}"}`,
      `["\uE0000","${a}"]`,
      `{"a":"${long('tab\there ')}"}`,
      `{"a":"${long('nul\u0000 ')}","b":"${a}"}`,
    ];
    for (const text of cases) expectSameAsJsonParse(Buffer.from(text));
  });

  it('reads UTF-8 text, keeps U+FEFF inside it and drops a leading byte order mark', () => {
    const a = long('grüße, 日本語, emoji 🎉 ');
    const cases = [
      JSON.stringify({ a, b: 'ünïcödé' }),
      JSON.stringify({ a: `\uFEFF${a}`, b: `\uFEFF${long('x')}` }),
      JSON.stringify([long('\uE000 private use ')]),
    ];
    for (const text of cases) expectSameAsJsonParse(Buffer.from(text));
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify({ a }))]);
    expectSameAsJsonParse(withBom);
    expect((parse(Buffer.from(cases[1] as string)) as { a: string }).a.charCodeAt(0)).toBe(0xfeff);
  });

  it('refuses what JSON.parse refuses, with its message, and bytes that are not UTF-8', () => {
    const a = long('x');
    const malformed = [
      `{"a":"${a}" "b":"${a}"}`,
      `{"a":"${a}",}`,
      `["${a}"`,
      `{"a":"${a}"} trailing`,
      `{"a":"${a}","b":1e}`,
    ];
    for (const text of malformed) {
      const result = outcome(() => parse(Buffer.from(text)));
      expect(result).toMatchObject({ threw: 'SyntaxError' });
      expectSameAsJsonParse(Buffer.from(text));
    }
    const invalid = Buffer.concat([
      Buffer.from(`{"a":"${long('é')}`),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    expect(outcome(() => parse(invalid))).toMatchObject({ threw: 'TypeError' });
  });

  it('agrees with JSON.parse on random documents', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const pieces = ['a', 'é', '日', '🎉', '\n', '"', '\\', ' ', '\uE000', '\uFEFF', 'z'];
    const string = (): string => {
      const length =
        random() < 0.3 ? LONG_STRING_BYTES + Math.floor(random() * 3000) : Math.floor(random() * 20);
      const onlyAscii = random() < 0.5;
      let text = '';
      while (text.length < length)
        text += onlyAscii ? 'abc def ' : (pieces[Math.floor(random() * pieces.length)] as string);
      return text;
    };
    const value = (depth: number): unknown => {
      const pick = random();
      if (depth > 4 || pick < 0.4) return string();
      if (pick < 0.5) return Math.floor(random() * 1000);
      if (pick < 0.75) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, () => [string(), value(depth + 1)]),
      );
    };
    for (let i = 0; i < 300; i++) expectSameAsJsonParse(Buffer.from(JSON.stringify(value(0))));
  });

  it('decodes a long string in pieces of at most 32 KiB, never cutting a character', () => {
    const decoded: number[] = [];
    const original = Buffer.prototype.toString;
    const spy = function (this: Buffer, encoding?: BufferEncoding, start?: number, end?: number): string {
      decoded.push((end ?? this.length) - (start ?? 0));
      return original.call(this, encoding, start, end);
    };
    vi.spyOn(Buffer.prototype, 'toString').mockImplementation(spy as () => string);
    const content = long('the gateway forwards every byte ', 1024 * 1024);
    const parsed = parse(Buffer.from(JSON.stringify({ messages: [{ role: 'user', content }] })));
    expect((parsed as { messages: { content: string }[] }).messages[0]?.content).toBe(content);
    expect(Math.max(...decoded)).toBeLessThanOrEqual(32 * 1024);
    vi.restoreAllMocks();
    // Four-byte characters after 0 to 3 ASCII bytes: every piece boundary falls at another place in them.
    for (const lead of ['', 'a', 'ab', 'abc']) {
      expectSameAsJsonParse(
        Buffer.from(JSON.stringify({ a: lead + '🎉'.repeat(40_000), b: 'é'.repeat(50_000) })),
      );
    }
    // A byte that is not UTF-8 right where a piece would end is still refused.
    const bad = Buffer.from(JSON.stringify({ a: 'é'.repeat(40_000) }));
    bad[6 + 32 * 1024] = 0xff;
    expect(outcome(() => parse(bad))).toMatchObject({ threw: 'TypeError' });
  });

  it('does not hand a long string to JSON.parse', () => {
    const content = long('the gateway forwards every byte ', 1024 * 1024);
    const bytes = Buffer.from(
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content }], max_tokens: 64 }),
    );
    const seen: number[] = [];
    const original = JSON.parse;
    vi.spyOn(JSON, 'parse').mockImplementation((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      seen.push(text.length);
      return original(text, reviver);
    });
    const parsed = parse(bytes) as { messages: { content: string }[] };
    expect(parsed.messages[0]?.content).toBe(content);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBeLessThan(200);
  });

  it('finds a raw control character in a long string wherever it is, and nothing else', () => {
    for (const at of [0, 1, 2, 3, 4, 4095, 4096, 4097, 8191, 20_000, 65_535]) {
      for (const control of [0x00, 0x09, 0x0a, 0x1f]) {
        const a = Buffer.from(long('plain text ', 65_536));
        a[at] = control;
        const text = Buffer.concat([Buffer.from('{"a":"'), a, Buffer.from('"}')]);
        expectSameAsJsonParse(text);
      }
    }
  });
});

describe('hasControlByte', () => {
  /** The plain definition: some byte below 0x20. */
  const naive = (bytes: Uint8Array, start: number, end: number) =>
    bytes.subarray(start, end).some((b) => b < 0x20);

  it('agrees with a byte-by-byte check for any bytes, offsets and lengths', () => {
    // Bytes near the edges that matter: just below and at 0x20, the top bit set, 0xff (borrows across bytes).
    const palette = [0x00, 0x01, 0x1f, 0x20, 0x21, 0x7f, 0x80, 0x9f, 0xa0, 0xdf, 0xe0, 0xff];
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const backing = new Uint8Array(9_000);
    for (let round = 0; round < 3_000; round++) {
      // Mostly ordinary bytes, with a rare control byte, so that both answers come up often.
      const rare = random() < 0.5 ? 0.0005 : 0.05;
      for (let i = 0; i < backing.length; i++) {
        const pick = palette[Math.floor(random() * palette.length)] as number;
        backing[i] = pick < 0x20 && random() > rare ? 0x20 + (pick & 0x5f) : pick;
      }
      const offset = Math.floor(random() * 8);
      const bytes = new Uint8Array(backing.buffer, offset, backing.length - offset);
      const start = Math.floor(random() * 16);
      const end = Math.min(bytes.length, start + Math.floor(random() * 8_500));
      expect(hasControlByte(bytes, start, end)).toBe(naive(bytes, start, end));
    }
  });

  it('finds a single control byte at any position of a range of several 4 KiB blocks, at any alignment', () => {
    for (const offset of [0, 1, 3]) {
      const backing = new Uint8Array(3 * 4_096 + 64).fill(0x61);
      const bytes = new Uint8Array(backing.buffer, offset, backing.length - offset);
      const [start, end] = [5, bytes.length - 7];
      expect(hasControlByte(bytes, start, end)).toBe(false);
      for (let at = start; at < end; at++) {
        bytes[at] = 0x1f;
        expect(hasControlByte(bytes, start, end)).toBe(true);
        bytes[at] = 0x61;
      }
    }
  });

  it('reads no byte outside the range', () => {
    const bytes = Buffer.from('\u0000abcdefgh\u0000');
    expect(hasControlByte(bytes, 1, bytes.length - 1)).toBe(false);
    expect(hasControlByte(bytes, 0, bytes.length - 1)).toBe(true);
    expect(hasControlByte(bytes, 1, bytes.length)).toBe(true);
    expect(hasControlByte(bytes, 5, 5)).toBe(false);
  });
});
