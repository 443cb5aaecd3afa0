import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStore } from '../store/open-store.js';
import type { Store } from '../store/store.js';
import { makeRecord } from '../store/store-contract.js';
import { startRecordRetention } from './record-retention.js';

/** Waits on the condition for up to 10 s (vi.waitFor's default is 1 s, which a loaded machine can use up). */
const UNTIL = { timeout: 10_000 };

const NOW = new Date('2026-06-30T12:00:00.000Z');
const ALL_TIME = { from: '2000-01-01T00:00:00Z', to: '2100-01-01T00:00:00Z' };

describe('record retention', () => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
  });

  async function storeWithRecords() {
    store = await openStore('sqlite::memory:');
    const old = makeRecord({ createdAt: '2026-03-01T12:00:00.000Z', costNanoUsd: 5 });
    const kept = makeRecord({ createdAt: '2026-06-01T12:00:00.000Z' });
    await store.insertRecords([old, kept]);
    return { store, old, kept };
  }

  it('deletes records older than retentionDays at start, keeps newer ones and the rollups', async () => {
    const { store, old, kept } = await storeWithRecords();
    const lines: string[] = [];
    const retention = startRecordRetention({
      store,
      retentionDays: 90,
      intervalMs: 3_600_000,
      log: (line) => lines.push(line),
      now: () => NOW,
    });
    await vi.waitFor(() => expect(lines).toHaveLength(1), UNTIL);
    await retention.stop();
    expect(lines[0]).toBe('record retention: deleted 1 records created before 2026-04-01T12:00:00.000Z');
    expect(await store.getRecord(old.genId, 'acme')).toBeUndefined();
    expect(await store.getRecord(kept.genId, 'acme')).toStrictEqual(kept);
    const report = await store.spendReport(ALL_TIME, 'day');
    expect(report.map((row) => row.group)).toEqual(['2026-03-01', '2026-06-01']);
  });

  it('keeps everything with retentionDays 0, and logs a failed run instead of throwing', async () => {
    const { store, old } = await storeWithRecords();
    const never = startRecordRetention({
      store,
      retentionDays: 0,
      intervalMs: 60_000,
      log: () => {},
      now: () => NOW,
    });
    await never.stop();
    expect(await store.getRecord(old.genId, 'acme')).toBeDefined();

    const lines: string[] = [];
    const failing = startRecordRetention({
      store: { pruneRecords: () => Promise.reject(new Error('database is locked')) },
      retentionDays: 1,
      intervalMs: 60_000,
      log: (line) => lines.push(line),
    });
    await vi.waitFor(
      () => expect(lines).toEqual(['record retention: pruning failed: database is locked']),
      UNTIL,
    );
    await failing.stop();
  });
});
