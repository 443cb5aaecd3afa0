import { describe, expect, it } from 'vitest';
import { generationId } from './generation-id.js';

const UUID_V7 = /^gen_[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('generationId', () => {
  it('is gen_ and a version 7 UUID whose first 48 bits are the time in milliseconds', () => {
    const at = Date.parse('2026-11-28T13:00:00.123Z');
    const id = generationId(at);
    expect(id).toMatch(UUID_V7);
    expect(Number.parseInt(id.slice(4, 17).replace('-', ''), 16)).toBe(at);
  });

  it('sorts by creation time, and is unique within one millisecond', () => {
    const at = Date.parse('2026-11-28T13:00:00.000Z');
    const byTime = [
      generationId(at),
      generationId(at + 1),
      generationId(at + 60_000),
      generationId(at + 2 ** 40),
    ];
    expect([...byTime].reverse().sort()).toEqual(byTime);
    const same = new Set(Array.from({ length: 10_000 }, () => generationId(at)));
    expect(same.size).toBe(10_000);
    for (const id of same) expect(id).toMatch(UUID_V7);
  });
});
