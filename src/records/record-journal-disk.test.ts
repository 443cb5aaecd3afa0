import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeRecord } from '../store/store-contract.js';
import { journalOpener } from '../test-support/journal-opener.js';

/** The disk under the journal: each failure set here is thrown by the next calls of that function. */
const disk = vi.hoisted(() => ({
  openError: undefined as NodeJS.ErrnoException | undefined,
  writeError: undefined as NodeJS.ErrnoException | undefined,
  /** Bytes a failing write still writes before it throws (a disk filling up mid-write). */
  writtenBeforeError: 0,
  fsyncError: undefined as NodeJS.ErrnoException | undefined,
}));

vi.mock('node:fs', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs')>();
  return {
    ...real,
    openSync: (...args: Parameters<typeof real.openSync>) => {
      if (disk.openError) throw disk.openError;
      return real.openSync(...args);
    },
    writeSync: (fd: number, buffer: Buffer, offset: number) => {
      if (!disk.writeError) return real.writeSync(fd, buffer, offset);
      if (disk.writtenBeforeError > 0) {
        const part = Math.min(disk.writtenBeforeError, buffer.length - offset);
        disk.writtenBeforeError = 0;
        return real.writeSync(fd, buffer, offset, part);
      }
      throw disk.writeError;
    },
    fdatasync: (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => {
      if (disk.fsyncError) done(disk.fsyncError);
      else real.fdatasync(fd, done);
    },
    fdatasyncSync: (fd: number) => {
      if (disk.fsyncError) throw disk.fsyncError;
      real.fdatasyncSync(fd);
    },
  };
});

const failure = (code: string): NodeJS.ErrnoException =>
  Object.assign(new Error(`${code}: simulated`), { code });

const { journalIn, closeAll } = journalOpener();
afterEach(() => {
  Object.assign(disk, { openError: undefined, writeError: undefined, writtenBeforeError: 0 });
  disk.fsyncError = undefined;
  closeAll();
});

const freshDir = () => fs.mkdtempSync(join(tmpdir(), 'journal-disk-'));

describe('RecordJournal on a failing disk', () => {
  // Bug: a new segment that could not be created (a full or read-only disk, the directory deleted) threw out
  // of the grouped write: `finish` never resolved (the answer's last byte waited for ever) and, in the
  // gateway, the exception was uncaught and ended the process. The old segment's descriptor was closed
  // first, so its number could be reused by a socket or the database and journal lines written into it.
  it('stays on its segment when a new one cannot be created, and says so once', async () => {
    const dir = freshDir();
    const { journal, lines } = journalIn(dir, { segmentBytes: 4_096 });
    const first = Array.from({ length: 10 }, () => makeRecord());
    for (const record of first) await journal.finish(record);
    disk.openError = failure('EROFS');
    const during = Array.from({ length: 10 }, () => makeRecord());
    for (const record of during) await journal.finish(record);
    expect(lines.filter((line) => line.includes('EROFS'))).toHaveLength(1);
    disk.openError = undefined;
    await journal.finish(makeRecord());
    expect(lines.at(-1)).toMatch(/available again/);
    // Every line went to a segment that a crash leaves behind.
    const { replayed } = journalIn(dir, { staleMs: -1 });
    expect(replayed.map((record) => record.genId)).toEqual(
      expect.arrayContaining([...first, ...during].map((record) => record.genId)),
    );
  });

  // Bug: a write cut short by a full disk left half a line; the next write went on after it, so the first
  // line written once the disk had room again was glued to the half line and lost at replay. And the lines
  // of the failed write were dropped: a record the store had not taken yet was lost at a stop.
  it('begins a new line after a write the disk cut short, so later lines replay', async () => {
    const dir = freshDir();
    const { journal, lines } = journalIn(dir);
    disk.writeError = failure('ENOSPC');
    disk.writtenBeforeError = 40;
    const during = makeRecord();
    await journal.finish(during);
    expect(lines.join('\n')).toMatch(/ENOSPC/);
    disk.writeError = undefined;
    const after = makeRecord();
    await journal.finish(after);
    const { replayed, corrupt } = journalIn(dir, { staleMs: -1 });
    expect(corrupt).toBe(1);
    // The record whose write failed is written again with the next write.
    expect(replayed.map((record) => record.genId).sort()).toEqual([during.genId, after.genId].sort());
  });

  // Bug: a failed fsync was ignored: records the operator asked to be on disk before each answer ended
  // (`journalFsyncIntervalMs: 0`) were not, and nothing said so.
  it('says once that fsync fails while writes work, and once that it works again', async () => {
    const dir = freshDir();
    const { journal, lines } = journalIn(dir, { fsyncIntervalMs: 0 });
    disk.fsyncError = failure('EIO');
    for (let i = 0; i < 3; i += 1) await journal.finish(makeRecord());
    expect(lines).toEqual([expect.stringMatching(/^record journal fsync .* unavailable: EIO/)]);
    expect(journal.failure).toMatch(/EIO/);
    disk.fsyncError = undefined;
    await journal.finish(makeRecord());
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^record journal fsync .* available again/);
    expect(journal.failure).toBeUndefined();
  });

  // Bug: a stop with records the store had not taken said they were kept in the journal even when the
  // journal could not write them (a full disk): the operator was told nothing was lost.
  it('says at close that its last lines could not be written', async () => {
    const dir = freshDir();
    const { journal } = journalIn(dir);
    disk.writeError = failure('ENOSPC');
    await journal.finish(makeRecord());
    expect(journal.close()).toMatchObject({ unshipped: 1, failure: expect.stringMatching(/ENOSPC/) });
  });

  // Bug: an fsync or close that failed at shutdown (a disk gone bad) threw out of `close`, and the rest of
  // the shutdown (the store, the connections) never ran.
  it('closes without throwing when the last fsync fails, and logs it', async () => {
    const dir = freshDir();
    const { journal, lines } = journalIn(dir);
    await journal.finish(makeRecord());
    disk.fsyncError = failure('EIO');
    expect(journal.close()).toMatchObject({ unshipped: 1 });
    expect(lines.join('\n')).toMatch(/EIO/);
  });
});
