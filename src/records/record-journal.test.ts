import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeRecord } from '../store/store-contract.js';
import { journalOpener } from '../test-support/journal-opener.js';
import type { InterruptedRecordStub } from './journal-entries.js';

const { journalIn, closeAll } = journalOpener();
afterEach(closeAll);

/**
 * What the next start finds after this process "crashed": a journal opened beside the one left running, told
 * to take over every other instance directory (in one process the crashed owner's pid is still alive).
 */
const afterCrash = (dir: string) => journalIn(dir, { staleMs: -1 });

const stub = (genId: string): InterruptedRecordStub => ({
  genId,
  orgId: 'acme',
  apiKeyId: 'key_1',
  model: 'acme/chat-large',
  path: '/v1/chat/completions',
  createdAt: new Date(Date.now() - 1_000).toISOString(),
  streamed: true,
  reservedNanoUsd: 9_000,
});

const segmentsOf = (dir: string) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.jsonl'));

describe('RecordJournal', () => {
  it('replays finished records that were never shipped, and not the ones a clean stop shipped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const { journal } = journalIn(dir);
    const shipped = makeRecord();
    const unshipped = makeRecord();
    await journal.finish(shipped);
    await journal.finish(unshipped);
    journal.shipped([shipped.genId]);
    const { replayed, corrupt } = afterCrash(dir);
    expect(corrupt).toBe(0);
    expect(replayed.map((record) => record.genId)).toContain(unshipped.genId);
    expect(replayed.find((record) => record.genId === unshipped.genId)).toStrictEqual(unshipped);
  });

  it('turns a request that began and never finished into an interrupted record, with its progress', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const { journal } = journalIn(dir, { progressIntervalMs: 20 });
    journal.begin(stub('gen_cut'));
    journal.begin(stub('gen_done'));
    journal.progress('gen_cut', {
      provider: 'fake-cloud',
      httpStatus: 200,
      inputTokens: 12,
      outputTokens: 30,
      costNanoUsd: 264_000,
    });
    await journal.finish(makeRecord({ genId: 'gen_done' }));
    const file = join(dir, segmentsOf(dir)[0] ?? '');
    // A wait on the journal (every 20 ms when all is well), up to 10 s: 2 s was a budget a loaded machine could use up.
    const deadline = Date.now() + 10_000;
    while (!readFileSync(file, 'utf8').includes('"p":')) {
      if (Date.now() > deadline) throw new Error('progress was not journaled within 10 s');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const { replayed } = afterCrash(dir);
    const cut = replayed.find((record) => record.genId === 'gen_cut');
    expect(cut).toMatchObject({
      status: 'interrupted',
      provider: 'fake-cloud',
      httpStatus: 200,
      inputTokens: 12,
      outputTokens: 30,
      costNanoUsd: 264_000,
      reqCost: 0.000264,
      streamed: true,
      model: 'acme/chat-large',
    });
    expect(cut?.totalDurationMs).toBeGreaterThan(0);
    expect(cut?.warnings).toEqual(['interrupted: 9000 nano-USD had been reserved for this request']);
    expect(replayed.find((record) => record.genId === 'gen_done')?.status).toBe('success');
  });

  it('advances progressEpoch each time it journals progress', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const { journal } = journalIn(dir, { progressIntervalMs: 10 });
    journal.begin(stub('gen_stream'));
    expect(journal.progressEpoch).toBe(0);
    journal.progress('gen_stream', { outputTokens: 5 });
    await vi.waitFor(() => expect(journal.progressEpoch).toBe(1), { timeout: 5_000 });
    journal.progress('gen_stream', { outputTokens: 9, costNanoUsd: 900, reservedNanoUsd: 50_000 });
    await vi.waitFor(() => expect(journal.progressEpoch).toBe(2), { timeout: 5_000 });
    // The epoch advances as the progress is queued; its line is written at the end of that turn, which a poll
    // that ran in the same timers phase did not wait for (the replay then read the first progress).
    const file = join(dir, segmentsOf(dir)[0] ?? '');
    await vi.waitFor(() => expect(readFileSync(file, 'utf8')).toContain('"outputTokens":9'), {
      timeout: 5_000,
    });
    const { replayed } = afterCrash(dir);
    const cut = replayed.find((record) => record.genId === 'gen_stream');
    expect(cut).toMatchObject({ outputTokens: 9, costNanoUsd: 900 });
    expect(cut?.warnings).toEqual(['interrupted: 50000 nano-USD had been reserved for this request']);
  });

  // Bug: gateways on two databases sharing one journal root (the default `data/journal` of a working
  // directory) replayed each other's records: a killed one's went into the other's database.
  it('takes over only the directories of instances that wrote for the same store', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const a = journalIn(dir, { store: 'store-a' });
    a.journal.begin(stub('gen_of_a'));
    await a.journal.finish(makeRecord({ genId: 'gen_done_a' }));
    const onB = journalIn(dir, { staleMs: -1, store: 'store-b' });
    expect(onB.replayed.map((record) => record.genId)).toEqual([]);
    const onA = journalIn(dir, { staleMs: -1, store: 'store-a' });
    expect(onA.replayed.map((record) => record.genId).sort()).toEqual(['gen_done_a', 'gen_of_a']);
  });

  it('sets a timer only while there is progress to write or a write to sync', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    try {
      const { journal } = journalIn(dir, { fsyncIntervalMs: 1_000, progressIntervalMs: 500 });
      // The instance directory's heartbeat; nothing of the journal's own while it is idle.
      const idle = vi.getTimerCount();
      vi.advanceTimersByTime(5_000);
      journal.begin(stub('gen_a'));
      await journal.finish(makeRecord({ genId: 'gen_b' }));
      // Written: the sync timer is armed.
      expect(vi.getTimerCount()).toBe(idle + 1);
      journal.progress('gen_a', { outputTokens: 3 });
      journal.progress('gen_a', { outputTokens: 4 });
      expect(vi.getTimerCount()).toBe(idle + 2);
      vi.advanceTimersByTime(500);
      await new Promise((resolve) => setImmediate(resolve));
      const file = join(dir, segmentsOf(dir)[0] ?? '');
      expect(readFileSync(file, 'utf8')).toContain('"outputTokens":4');
      // Progress written; the sync of the first write is still due.
      expect(vi.getTimerCount()).toBe(idle + 1);
      vi.advanceTimersByTime(500);
      // Synced: idle again until the next change or write.
      expect(vi.getTimerCount()).toBe(idle);
      vi.advanceTimersByTime(60_000);
      expect(vi.getTimerCount()).toBe(idle);
    } finally {
      vi.useRealTimers();
    }
  });

  it('skips a last line cut by a crash, and keeps every whole line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const { journal } = journalIn(dir);
    const records = [makeRecord(), makeRecord()];
    for (const record of records) await journal.finish(record);
    const file = join(dir, segmentsOf(dir)[0] ?? '');
    appendFileSync(file, '{"f":{"genId":"gen_half","orgId":"ac');
    const { replayed, corrupt, lines } = afterCrash(dir);
    expect(corrupt).toBe(1);
    expect(lines).toEqual(['record journal: 1 damaged lines skipped at replay (a write cut by a crash)']);
    expect(replayed.map((record) => record.genId).sort()).toEqual(
      records.map((record) => record.genId).sort(),
    );
  });

  // Bug: a damaged line in the middle of a segment (or valid JSON that is no journal line) was skipped and
  // the segment deleted with the taken-over directory: the only evidence of the damage was gone.
  it('replays the good lines around damaged ones, and sets the damaged segment aside', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const { journal } = journalIn(dir);
    const before = makeRecord();
    await journal.finish(before);
    const file = join(dir, segmentsOf(dir)[0] ?? '');
    appendFileSync(file, '{"f":{"genId":"gen_bad"\x00garbage\n{"f":{"genId":"gen_wrong_shape"}}\n');
    const after = makeRecord();
    await journal.finish(after);
    const { replayed, corrupt, lines } = afterCrash(dir);
    expect(corrupt).toBe(2);
    expect(replayed.map((record) => record.genId).sort()).toEqual([before.genId, after.genId].sort());
    const aside = readdirSync(dir).filter((name) => name.startsWith('damaged-'));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(dir, aside[0] ?? ''), 'utf8')).toContain('gen_wrong_shape');
    expect(lines).toEqual([expect.stringMatching(/has 2 damaged lines; .* set aside: .*damaged-/)]);
  });

  // Bug: a segment that could not be read (an I/O error, a file larger than V8's longest string) threw out
  // of the replay, and the gateway could not start until someone removed it by hand.
  it('starts when a segment cannot be read, replays the others and sets it aside', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const { journal } = journalIn(dir);
    const good = makeRecord();
    await journal.finish(good);
    const instance = dirname(join(dir, segmentsOf(dir)[0] ?? ''));
    // A directory where a segment file should be: reading it fails as an unreadable file would (EISDIR).
    mkdirSync(join(instance, 'segment-000009.jsonl'));
    const { replayed, lines } = afterCrash(dir);
    expect(replayed.map((record) => record.genId)).toEqual([good.genId]);
    expect(lines).toEqual([expect.stringMatching(/segment-000009\.jsonl has unreadable: .*EISDIR/)]);
    expect(readdirSync(dir).filter((name) => name.startsWith('damaged-'))).toHaveLength(1);
  });

  // Bug: a journal directory removed under the running gateway (a cleanup script, an operator) left the
  // journal writing a deleted file until its segment filled: nothing written meanwhile survived a crash.
  it('makes its directory again once the heartbeat finds it removed, and journals there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const { journal, lines } = journalIn(dir, { staleMs: 4_000 });
    await journal.finish(makeRecord());
    rmSync(dir, { recursive: true, force: true });
    const after = makeRecord();
    // The heartbeat (every second here) notices; the next write then begins a segment in the new directory.
    await vi.waitFor(
      async () => {
        await journal.finish(after);
        expect(lines.join('\n')).toMatch(/was removed while the gateway ran; made again/);
      },
      { timeout: 10_000, interval: 100 },
    );
    await journal.finish(makeRecord());
    const { replayed } = afterCrash(dir);
    expect(replayed.map((record) => record.genId)).toContain(after.genId);
  });

  it('replays what it replayed again after a second crash (replayed records are journaled anew)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const { journal } = journalIn(dir);
    journal.begin(stub('gen_twice'));
    await journal.finish(makeRecord({ genId: 'gen_ok' }));
    afterCrash(dir);
    const { replayed } = afterCrash(dir);
    expect(replayed.map((record) => [record.genId, record.status]).sort()).toEqual([
      ['gen_ok', 'success'],
      ['gen_twice', 'interrupted'],
    ]);
  });

  it('starts a new segment beyond segmentBytes, deletes shipped ones, and carries running requests over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const { journal } = journalIn(dir, { segmentBytes: 4_000 });
    journal.begin(stub('gen_long'));
    const records = Array.from({ length: 30 }, () => makeRecord());
    for (const record of records) await journal.finish(record);
    expect(segmentsOf(dir).length).toBeGreaterThan(3);
    journal.shipped(records.map((record) => record.genId));
    const last = makeRecord();
    await journal.finish(last);
    expect(segmentsOf(dir)).toHaveLength(1);
    const { replayed } = afterCrash(dir);
    // The current segment may still hold a few shipped records (replaying them again is harmless).
    expect(replayed.length).toBeLessThan(10);
    expect(replayed.filter((record) => record.status === 'interrupted').map((r) => r.genId)).toEqual([
      'gen_long',
    ]);
    expect(replayed.map((record) => record.genId)).toContain(last.genId);
  });

  it('a clean close with everything shipped leaves nothing; with a backlog, the next start takes it over', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const first = journalIn(dir).journal;
    const record = makeRecord();
    await first.finish(record);
    first.shipped([record.genId]);
    expect(first.close()).toMatchObject({ unshipped: 0, unfinished: 0 });
    expect(segmentsOf(dir)).toEqual([]);

    const second = journalIn(dir).journal;
    const kept = makeRecord();
    await second.finish(kept);
    const live = journalIn(dir);
    expect(live.replayed).toEqual([]);
    expect(second.close()).toMatchObject({ unshipped: 1, unfinished: 0 });
    const next = journalIn(dir);
    expect(next.replayed.map((r) => r.genId)).toEqual([kept.genId]);
  });

  it('with fsyncIntervalMs 0, finish resolves after the write is synced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'journal-'));
    const { journal } = journalIn(dir, { fsyncIntervalMs: 0 });
    const records = Array.from({ length: 50 }, () => makeRecord());
    await Promise.all(records.map((record) => journal.finish(record)));
    const text = readFileSync(join(dir, segmentsOf(dir)[0] ?? ''), 'utf8');
    expect(text.trim().split('\n')).toHaveLength(50);
    expect(existsSync(join(dir, 'dead-letter.jsonl'))).toBe(false);
  });
});
