import { describe, expect, it } from 'vitest';
import { dayOf, recordDayOf } from './record-query.js';

const DAY = 86_400_000;

describe('recordDayOf', () => {
  it('names the same UTC day as the ISO date, over every day of 1970–2100 and at the ends of the range', () => {
    for (let ms = 0; ms < Date.UTC(2101, 0, 1); ms += DAY) {
      for (const at of [ms, ms + DAY - 1]) expect(recordDayOf(at)).toBe(dayOf(at));
    }
    for (const iso of ['2000-02-29T12:00:00Z', '2100-02-28T23:59:59.999Z', '9999-12-31T23:59:59.999Z']) {
      expect(recordDayOf(Date.parse(iso))).toBe(iso.slice(0, 10));
    }
  });

  it('agrees with the ISO date on random instants up to year 9999', () => {
    const max = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    let seed = 7;
    for (let i = 0; i < 20_000; i += 1) {
      seed = (seed * 48_271) % 2_147_483_647;
      const ms = Math.floor((seed / 2_147_483_647) * max);
      expect(recordDayOf(ms)).toBe(dayOf(ms));
    }
  });
});
