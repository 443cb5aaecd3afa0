import { describe, expect, it } from 'vitest';
import { scanJson } from './json-depth.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

const exceedsJsonDepth = (bytes: Uint8Array, maxDepth: number) => scanJson(bytes, maxDepth).tooDeep;

describe('scanJson depth', () => {
  it('allows exactly maxDepth levels and refuses one more', () => {
    expect(exceedsJsonDepth(bytes(nested(5)), 5)).toBe(false);
    expect(exceedsJsonDepth(bytes(nested(6)), 5)).toBe(true);
    expect(exceedsJsonDepth(bytes(`{"a":{"b":{"c":[1,{"d":2}]}}}`), 5)).toBe(false);
    expect(exceedsJsonDepth(bytes(`{"a":{"b":{"c":[1,{"d":[2]}]}}}`), 5)).toBe(true);
  });

  it('counts siblings at their own depth, not cumulatively', () => {
    const wide = `[${Array.from({ length: 1000 }, () => '[[1]]').join(',')}]`;
    expect(exceedsJsonDepth(bytes(wide), 3)).toBe(false);
    expect(exceedsJsonDepth(bytes(wide), 2)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({ a: '[[[[[[[[{{{{{{', b: 'say \\"[[[[[[\\" \\\\', c: ['"[[[[[[['] });
    expect(exceedsJsonDepth(bytes(text), 2)).toBe(false);
    expect(exceedsJsonDepth(bytes(JSON.stringify({ a: '\\', b: [[[1]]] })), 3)).toBe(true);
  });

  it('scans a 10 000-deep tools array and multi-byte text', () => {
    const deep = `{"model":"m","tools":${nested(10_000)}}`;
    expect(exceedsJsonDepth(bytes(deep), 100)).toBe(true);
    expect(exceedsJsonDepth(bytes(JSON.stringify({ text: 'ü€😀 [[[[', list: [[['ß']]] })), 4)).toBe(false);
  });

  it('leaves malformed text to the parser', () => {
    expect(exceedsJsonDepth(bytes('{"a": "unterminated [[[[[[[['), 2)).toBe(false);
    expect(exceedsJsonDepth(bytes(']]]]]]]]]][[['), 2)).toBe(false);
  });

  it('takes a Uint8Array that is not a Buffer', () => {
    expect(exceedsJsonDepth(new TextEncoder().encode(nested(4)), 3)).toBe(true);
  });
});
