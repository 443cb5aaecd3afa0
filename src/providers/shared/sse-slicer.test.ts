import { describe, expect, it } from 'vitest';
import { BYTE_EVENT_MIN, FEED_BYTES, SseSlicer } from './sse-slicer.js';

const big = (n: number) => `data: {"content":"${'x'.repeat(BYTE_EVENT_MIN + n)}"}\n\n`;
const small = (n: number) => `data: {"n":${n}}\n\n`;

/** Every piece the slicer hands on for `body` cut into reads at `cuts`, with event pieces reframed. */
function slice(body: string, cuts: number[], byteEvents = true) {
  const bytes = Buffer.from(body);
  const slicer = new SseSlicer(byteEvents);
  const pieces: { text: string; event: boolean }[] = [];
  const bounds = [0, ...cuts, bytes.length];
  for (let i = 0; i + 1 < bounds.length; i++) {
    slicer.put(new Uint8Array(bytes.subarray(bounds[i], bounds[i + 1])));
    for (let piece = slicer.next(); piece; piece = slicer.next()) {
      pieces.push({ text: piece.bytes.toString(), event: piece.kind === 'event' });
    }
  }
  const joined = pieces.map((piece) => (piece.event ? `data: ${piece.text}\n\n` : piece.text)).join('');
  return { pieces, joined };
}

describe('SseSlicer', () => {
  const mixed = [
    small(1),
    big(10),
    ': a comment\n\n',
    big(3000),
    small(2),
    'event: x\ndata: {"multi":\ndata: "line"}\n\n',
    big(0),
    small(3),
  ].join('');

  it('hands on every byte once and in order, wherever the reads are cut', () => {
    for (let cut = 0; cut <= mixed.length; cut += 7) {
      expect(slice(mixed, [cut]).joined).toBe(mixed);
      expect(slice(mixed, [cut, Math.min(mixed.length, cut + 1500)]).joined).toBe(mixed);
    }
  });

  it('hands on large single-line data events that start at a boundary as their JSON bytes', () => {
    const { pieces } = slice(mixed, []);
    const events = pieces.filter((piece) => piece.event).map((piece) => piece.text);
    expect(events).toEqual([big(10), big(3000), big(0)].map((event) => event.slice(6, -2)));
    for (const piece of pieces.filter((p) => !p.event)) {
      expect(piece.text.endsWith('\n\n')).toBe(true);
    }
  });

  it('never hands on as bytes an event cut by a read, a small event or a multi-line one', () => {
    const cutInside = mixed.indexOf(big(10)) + 100;
    const { pieces } = slice(mixed, [cutInside]);
    expect(pieces.filter((piece) => piece.event).map((piece) => piece.text.length)).toEqual([
      big(3000).length - 8,
      big(0).length - 8,
    ]);
    const multi = `data: {"a":"${'y'.repeat(BYTE_EVENT_MIN)}",\ndata: "b":1}\n\n`;
    expect(slice(multi + big(5), []).pieces.map((piece) => piece.event)).toEqual([false, true]);
  });

  it('hands CRLF-framed streams and consumers that take no bytes on as text only', () => {
    const crlf = mixed.replaceAll('\n', '\r\n');
    expect(slice(crlf, [333]).pieces.every((piece) => !piece.event)).toBe(true);
    expect(slice(crlf, [333]).joined).toBe(crlf);
    expect(slice(mixed, [], false).pieces.every((piece) => !piece.event)).toBe(true);
  });

  it('cuts text at event boundaries about every FEED_BYTES', () => {
    const body = Array.from({ length: 400 }, (_v, n) => small(n)).join('');
    for (const byteEvents of [true, false]) {
      const { pieces, joined } = slice(body, [], byteEvents);
      expect(joined).toBe(body);
      expect(pieces.length).toBeGreaterThan(1);
      for (const piece of pieces) {
        // With byte events the slice ends after the event that reaches FEED_BYTES.
        expect(piece.text.length).toBeLessThanOrEqual(FEED_BYTES + (byteEvents ? small(400).length : 0));
        expect(piece.text.endsWith('\n\n')).toBe(true);
      }
    }
  });
});
