import { describe, expect, it } from 'vitest';
import { parseConfig } from './load-config.js';

describe('records and store config', () => {
  it('has defaults', () => {
    const config = parseConfig({}, 'test');
    expect(config.records).toEqual({
      flushIntervalMs: 100,
      batchSize: 500,
      maxPending: 50_000,
      retryMaxMs: 5_000,
      shutdownFlushMs: 5_000,
      journalSegmentBytes: 8 * 1024 * 1024,
      journalFsyncIntervalMs: 1_000,
      progressIntervalMs: 1_000,
      retentionDays: 90,
      pruneIntervalMs: 3_600_000,
    });
    expect(config.store).toEqual({
      maxConnections: 10,
      connectTimeoutMs: 5_000,
      queryTimeoutMs: 10_000,
      attempts: 3,
      outageKeyGraceMs: 300_000,
    });
  });

  it('refuses a flush interval that would break the 1 s record visibility, and unknown keys', () => {
    expect(parseConfig({ records: { flushIntervalMs: 900 } }, 'test').records.flushIntervalMs).toBe(900);
    expect(() => parseConfig({ records: { flushIntervalMs: 901 } }, 'test')).toThrow(
      /records\.flushIntervalMs/,
    );
    expect(() => parseConfig({ store: { attempts: 0 } }, 'test')).toThrow(/store\.attempts/);
    expect(parseConfig({ records: { retentionDays: 0 } }, 'test').records.retentionDays).toBe(0);
    expect(parseConfig({ records: { retentionDays: 36_500 } }, 'test').records.retentionDays).toBe(36_500);
    for (const retentionDays of [-1, 36_501, 1.5]) {
      expect(() => parseConfig({ records: { retentionDays } }, 'test')).toThrow(/records\.retentionDays/);
    }
    expect(() => parseConfig({ records: { pruneIntervalMs: 59_999 } }, 'test')).toThrow(
      /records\.pruneIntervalMs/,
    );
    expect(() => parseConfig({ records: { journal: '/x' } }, 'test')).toThrow(
      /records\.journal: unknown key/,
    );
  });
});
