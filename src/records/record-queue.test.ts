import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqliteStore } from '../store/sqlite-store.js';
import type { Store } from '../store/store.js';
import { makeRecord } from '../store/store-contract.js';
import { InvalidRecordError, StoreUnavailableError } from '../store/store-errors.js';
import type { GenerationRecord } from './generation-record.js';
import { RecordJournal } from './record-journal.js';
import { RecordQueue } from './record-queue.js';

/** A store whose `insertRecords` is the given function; the rest is never called by the queue. */
function fakeStore(insert: (records: GenerationRecord[]) => Promise<void>): Store {
  const store = new SqliteStore(':memory:');
  store.insertRecords = insert;
  return store;
}

const queues: RecordQueue[] = [];
const journals: RecordJournal[] = [];
afterEach(async () => {
  for (const queue of queues.splice(0)) await queue.close(0);
  for (const journal of journals.splice(0)) journal.close();
});

function queueWith(store: Store, options: Partial<ConstructorParameters<typeof RecordQueue>[0]> = {}) {
  const lines: string[] = [];
  const queue = new RecordQueue({
    store,
    log: (line) => lines.push(line),
    flushIntervalMs: 10_000,
    ...options,
  });
  queues.push(queue);
  return { queue, lines };
}

describe('RecordQueue', () => {
  it('writes a record with an absurd cost (the bug: one such record stopped all accounting), and the others', async () => {
    const store = new SqliteStore(':memory:');
    await store.migrate();
    const { queue } = queueWith(store);
    const absurd = makeRecord({ orgId: 'acme', costNanoUsd: 1e24, inputTokens: 1e15 });
    const normal = makeRecord({ orgId: 'beta', costNanoUsd: 7 });
    queue.push(absurd);
    queue.push(normal);
    await queue.flush();
    expect(queue.size).toBe(0);
    expect((await store.getRecord(absurd.genId, 'acme'))?.warnings.join()).toMatch(/costNanoUsd was 1e\+24/);
    expect(await store.getMonthlySpend('beta', '2026-03')).toBe(7);
    queue.push(makeRecord({ orgId: 'beta', costNanoUsd: 5 }));
    await queue.flush();
    expect(await store.getMonthlySpend('beta', '2026-03')).toBe(12);
  });

  it('leaves a refused record in the journal when its dead letter cannot be written, and goes on', async () => {
    const written: string[] = [];
    const store = fakeStore(async (records) => {
      if (records.some((record) => record.model === 'poison')) throw new InvalidRecordError('out of range');
      written.push(...records.map((record) => record.genId));
    });
    const { journal } = RecordJournal.open({
      dir: mkdtempSync(join(tmpdir(), 'queue-dead-letter-full-')),
      segmentBytes: 1 << 20,
      fsyncIntervalMs: 1000,
      progressIntervalMs: 1000,
      log: () => undefined,
    });
    journals.push(journal);
    vi.spyOn(journal, 'deadLetter').mockImplementation(() => {
      throw new Error('ENOSPC: no space left on device');
    });
    const { queue, lines } = queueWith(store, { journal });
    const poison = makeRecord({ model: 'poison' });
    const fine = makeRecord({ model: 'fine' });
    await Promise.all([queue.finish(poison), queue.finish(fine)]);
    await expect(queue.flush()).resolves.toBeUndefined();
    expect(written).toEqual([fine.genId]);
    expect(queue.size).toBe(0);
    expect(lines).toEqual([expect.stringMatching(/left in the journal for the next start .*ENOSPC/)]);
    // Unshipped: replayed (and refused, and set aside) at the next start.
    expect(journal.unshipped).toBe(1);
    vi.restoreAllMocks();
  });

  it('isolates a record the store refuses, keeps it in the dead letter, and writes every other one', async () => {
    const written: string[] = [];
    const store = fakeStore(async (records) => {
      if (records.some((record) => record.model === 'poison'))
        throw new InvalidRecordError('value out of range');
      written.push(...records.map((record) => record.genId));
    });
    const dir = mkdtempSync(join(tmpdir(), 'queue-dead-letter-'));
    const { journal } = RecordJournal.open({
      dir,
      segmentBytes: 1 << 20,
      fsyncIntervalMs: 1000,
      progressIntervalMs: 1000,
      log: () => undefined,
    });
    journals.push(journal);
    const { queue, lines } = queueWith(store, { journal, batchSize: 8 });
    const records = Array.from({ length: 20 }, (_, i) => makeRecord({ model: i === 13 ? 'poison' : 'fine' }));
    await Promise.all(records.map((record) => queue.finish(record)));
    await queue.flush();
    expect(queue.size).toBe(0);
    expect(written.sort()).toEqual(
      records
        .filter((r) => r.model === 'fine')
        .map((r) => r.genId)
        .sort(),
    );
    expect(queue.metrics.deadLettered).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(/refused by the store \(value out of range\); kept in .*dead-letter\.jsonl/),
    ]);
    const dead = readFileSync(join(dir, 'dead-letter.jsonl'), 'utf8');
    expect(dead).toContain(records[13]?.genId);
    expect(journal.unshipped).toBe(0);
  });

  it('sets aside a record refused alone for an unknown reason only after three tries', async () => {
    const store = fakeStore(async (records) => {
      if (records.some((record) => record.model === 'odd')) throw new Error('something odd');
    });
    const { queue } = queueWith(store);
    queue.push(makeRecord({ model: 'odd' }));
    await queue.flush();
    await queue.flush();
    expect(queue.size).toBe(1);
    await queue.flush();
    expect(queue.size).toBe(0);
    expect(queue.metrics.deadLettered).toBe(1);
  });

  it('keeps everything while the store is unavailable, backs off, and writes it all when it is back', async () => {
    // A fake clock: "within the backoff" and "once it has passed" are the queue's own timers, not how long
    // this machine took between two lines (a stall past the 100 ms backoff made the second flush call).
    vi.useFakeTimers();
    try {
      let up = false;
      let calls = 0;
      const written: string[] = [];
      const store = fakeStore(async (records) => {
        calls += 1;
        if (!up) throw new StoreUnavailableError('PostgreSQL is unavailable: connect ECONNREFUSED');
        written.push(...records.map((record) => record.genId));
      });
      const { queue, lines } = queueWith(store, { retryMaxMs: 200, flushIntervalMs: 20 });
      const records = Array.from({ length: 10 }, () => makeRecord());
      for (const record of records) queue.push(record);
      await queue.flush();
      expect(queue.failing).toBe(true);
      // Within the backoff, flushes do not call the store.
      await queue.flush();
      await queue.flush();
      expect(calls).toBe(1);
      expect(queue.find(records[0]?.genId ?? '', 'acme')).toBeDefined();
      up = true;
      // The queue's own timer retries once the backoff (at most retryMaxMs) has passed.
      await vi.advanceTimersByTimeAsync(200);
      expect(queue.size).toBe(0);
      expect(calls).toBe(2);
      expect(queue.failing).toBe(false);
      expect(written.sort()).toEqual(records.map((record) => record.genId).sort());
      expect(lines).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes in batches of batchSize', async () => {
    const sizes: number[] = [];
    const { queue } = queueWith(
      fakeStore(async (records) => void sizes.push(records.length)),
      { batchSize: 2 },
    );
    for (let i = 0; i < 5; i += 1) queue.push(makeRecord());
    await queue.flush();
    expect(sizes).toEqual([2, 2, 1]);
  });

  it('lets other work run between two batches: a backlog never holds requests up for longer than one', async () => {
    const events: string[] = [];
    const store = fakeStore(async (records) => void events.push(`write ${records.length}`));
    const { queue } = queueWith(store, { batchSize: 32 });
    for (let i = 0; i < 2 * 32 + 3; i += 1) queue.push(makeRecord());
    const flushed = queue.flush();
    // Work that became ready once the flush began (an answer to write, a request to read) runs before the
    // second batch, not after the last.
    setImmediate(() => events.push('other work'));
    await flushed;
    expect(events).toEqual(['write 32', 'other work', 'write 32', 'write 3']);
    expect(queue.size).toBe(0);
  });

  it('holds at most maxPending records in memory and says so once', async () => {
    const { queue, lines } = queueWith(
      fakeStore(async () => undefined),
      { maxPending: 2 },
    );
    for (let i = 0; i < 4; i += 1) queue.push(makeRecord());
    expect(queue.size).toBe(2);
    expect(queue.metrics.refused).toBe(2);
    expect(lines).toEqual([expect.stringMatching(/record queue full \(2 pending/)]);
  });

  it('sets a timer only while records wait, and keeps retrying while the store is down', async () => {
    vi.useFakeTimers();
    try {
      let down = true;
      const written: string[] = [];
      const store = fakeStore(async (records) => {
        if (down) throw new StoreUnavailableError('down');
        written.push(...records.map((r) => r.genId));
      });
      const { queue } = queueWith(store, { flushIntervalMs: 100, retryMaxMs: 400 });
      // An idle queue never wakes the process.
      expect(vi.getTimerCount()).toBe(0);
      const record = makeRecord();
      queue.push(record);
      queue.push(makeRecord({ genId: record.genId }));
      expect(vi.getTimerCount()).toBe(1);
      await vi.advanceTimersByTimeAsync(100);
      expect(queue.failing).toBe(true);
      // Armed again for when the backoff ends.
      expect(vi.getTimerCount()).toBe(1);
      down = false;
      await vi.advanceTimersByTimeAsync(1_000);
      expect(written).toEqual([record.genId]);
      expect(queue.size).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  // Both on a fake clock: when the write or the give-up happens is read off the queue's own timers, not off
  // how fast this machine ran them.
  it('writes a record to the store within flushIntervalMs', async () => {
    vi.useFakeTimers();
    try {
      const written: string[] = [];
      const { queue } = queueWith(
        fakeStore(async (records) => void written.push(...records.map((r) => r.genId))),
        {
          flushIntervalMs: 50,
        },
      );
      const record = makeRecord();
      queue.push(record);
      await vi.advanceTimersByTimeAsync(50);
      expect(written).toEqual([record.genId]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('close() gives up at its deadline while the store is down and says how many records are left', async () => {
    vi.useFakeTimers();
    try {
      let tries = 0;
      const store = fakeStore(async () => {
        tries += 1;
        throw new StoreUnavailableError('down');
      });
      const { queue } = queueWith(store);
      for (let i = 0; i < 3; i += 1) queue.push(makeRecord());
      let left: number | undefined;
      void queue.close(300).then((count) => {
        left = count;
      });
      // Still trying just before the deadline (more than once), given up at it.
      await vi.advanceTimersByTimeAsync(299);
      expect(left).toBeUndefined();
      expect(tries).toBeGreaterThan(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(left).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });
});
