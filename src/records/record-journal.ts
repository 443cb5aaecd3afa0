import {
  appendFileSync,
  closeSync,
  existsSync,
  fdatasync,
  fdatasyncSync,
  openSync,
  unlinkSync,
} from 'node:fs';
import { join } from 'node:path';
import { OutageLog } from '../store/outage-log.js';
import type { GenerationRecord } from './generation-record.js';
import { InstanceDirectory } from './journal-directory.js';
import {
  beginLine,
  finishLine,
  type InterruptedRecordStub,
  type ProgressEntry,
  progressLine,
  type RecordProgress,
  recordsOfLines,
} from './journal-entries.js';
import { readSegmentLines, writeFully } from './journal-segment-files.js';

export interface RecordJournalOptions {
  /** Journal root, shared by the instances of one machine; each writes in its own subdirectory. */
  dir: string;
  /** A segment file larger than this is closed and a new one begun; shipped segments are deleted. */
  segmentBytes: number;
  /** fsync period of the current segment, ms; 0: every write is fsynced before `finish` resolves. */
  fsyncIntervalMs: number;
  /** How often the progress of unfinished requests is written, ms. */
  progressIntervalMs: number;
  /** An instance directory whose owner is alive but silent this long is taken over. */
  staleMs?: number;
  /** Names the store the records are for (see `journalStoreName`): another store's directories are left. */
  store?: string;
  log: (message: string) => void;
}

/** What the journal holds when it closes: records not yet in the store, requests never finished. */
export interface JournalBacklog {
  unshipped: number;
  unfinished: number;
  dir: string;
  /** Why the journal could not write its last lines, if it could not: records that reached neither are lost. */
  failure: string | undefined;
}

interface OpenRequest {
  stub: InterruptedRecordStub;
  progress: ProgressEntry | undefined;
  dirty: boolean;
}

/**
 * The local append-only journal of generation records, so that a crash or SIGKILL at any moment loses none:
 * a request is journaled when it begins (`begin`), now and then while it runs (`progress`) and with its
 * record when it finishes (`finish`, whose promise resolves once the line is in the file, i.e. safe from a
 * process crash). The record queue ships records to the store and reports them `shipped`; a segment whose
 * records are all shipped is deleted. At start, `open` replays what a previous process left: finished
 * records, and an `interrupted` record for each request that began and never finished.
 *
 * Throughput: lines are grouped, one `write` per event-loop turn for every request of that turn, and fsync
 * runs on a timer (a process crash keeps what was written; fsync only guards against losing the machine),
 * armed by a write, as the progress timer is by a change: an idle journal sets no timer.
 */
export class RecordJournal {
  readonly #options: RecordJournalOptions;
  readonly #instance: InstanceDirectory;
  readonly #open = new Map<string, OpenRequest>();
  /** Lines waiting for the next write, and the finished records among them. */
  #lines: string[] = [];
  #linesFinished = new Set<string>();
  #waiters: (() => void)[] = [];
  #scheduled = false;
  #fd: number;
  #segment = 1;
  #bytes = 0;
  #unsynced = false;
  /** Lines a failed write did not write, written again first; whether that write may have left half a line. */
  #failed = '';
  #cut = false;
  /** Unshipped record → its segment; unshipped records per segment. */
  readonly #unshipped = new Map<string, number>();
  readonly #perSegment = new Map<number, number>();
  readonly #writeOutage: OutageLog;
  /** fsync failures apart from writes: a write that works must not end an outage of the syncs. */
  readonly #syncOutage: OutageLog;
  /** Armed only while there is something to do (an idle gateway is never woken by the journal). */
  #progressTimer: NodeJS.Timeout | undefined;
  #syncTimer: NodeJS.Timeout | undefined;
  #closed = false;

  private constructor(options: RecordJournalOptions, instance: InstanceDirectory) {
    this.#options = options;
    this.#instance = instance;
    this.#fd = openSync(instance.segmentPath(this.#segment), 'a');
    this.#writeOutage = new OutageLog(`record journal ${options.dir}`, options.log);
    this.#syncOutage = new OutageLog(`record journal fsync ${options.dir}`, options.log);
  }

  /**
   * Opens this instance's journal and replays what stopped or crashed instances left behind: their records,
   * written again into this journal (so they survive another crash) and returned for the queue to ship.
   */
  static open(options: RecordJournalOptions): {
    journal: RecordJournal;
    replayed: GenerationRecord[];
    corrupt: number;
  } {
    const instance = new InstanceDirectory(options.dir, options.staleMs ?? 60_000, Date.now, options.store);
    const { lines, corrupt, damaged } = readSegmentLines(instance.segmentsToReplay());
    const journal = new RecordJournal(options, instance);
    const replayed = recordsOfLines(lines);
    for (const record of replayed) journal.#append(finishLine(record), record.genId);
    journal.#writeNow();
    fdatasyncSync(journal.#fd);
    for (const { file, reason } of damaged) {
      options.log(
        `record journal: segment ${file} has ${reason}; its good lines were replayed and the file set aside: ${instance.setAside(file)}`,
      );
    }
    instance.dropAdopted();
    if (corrupt > 0 && damaged.length === 0)
      options.log(`record journal: ${corrupt} damaged lines skipped at replay (a write cut by a crash)`);
    return { journal, replayed, corrupt };
  }

  /** A request was accepted: from now on, a crash leaves an `interrupted` record of it. */
  begin(stub: InterruptedRecordStub): void {
    if (this.#closed) return;
    this.#open.set(stub.genId, { stub, progress: undefined, dirty: false });
    this.#append(beginLine(stub));
  }

  /** What is known so far of an unfinished request; cheap (kept in memory, written every progressIntervalMs). */
  progress(genId: string, progress: RecordProgress): void {
    const request = this.#open.get(genId);
    if (!request) return;
    // Merged in place: a literal with two spreads costs microseconds per call on Node 20.
    request.progress = Object.assign(request.progress ?? { genId, at: '' }, progress);
    request.dirty = true;
    if (this.#progressTimer === undefined && !this.#closed) {
      this.#progressTimer = setTimeout(this.#progressDue, this.#options.progressIntervalMs);
      this.#progressTimer.unref();
    }
  }

  /**
   * Advances each time progress is journaled (every `progressIntervalMs` while requests report progress): a
   * running stream that sees it change reports its tokens and cost so far (`pump-stream.ts`), so a crash
   * leaves an `interrupted` record billed what was streamed. A plain number, read on every event: a stream
   * handed to the journal to be read from would be kept alive by it, and that cost a third more CPU per
   * stream (its objects outlived the young generation).
   */
  progressEpoch = 0;

  readonly #progressDue = (): void => {
    this.#progressTimer = undefined;
    this.progressEpoch += 1;
    this.#journalProgress();
  };

  /** The request's record; resolves once it is written (fsynced too when `fsyncIntervalMs` is 0). */
  finish(record: GenerationRecord): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#open.delete(record.genId);
    return new Promise((resolve) => {
      this.#append(finishLine(record), record.genId);
      this.#waiters.push(resolve);
    });
  }

  /** These records are in the store; segments left with nothing unshipped are deleted. */
  shipped(genIds: Iterable<string>): void {
    for (const genId of genIds) {
      if (this.#linesFinished.delete(genId)) continue;
      const segment = this.#unshipped.get(genId);
      if (segment === undefined) continue;
      this.#unshipped.delete(genId);
      const left = (this.#perSegment.get(segment) ?? 1) - 1;
      if (left > 0) this.#perSegment.set(segment, left);
      else this.#dropSegment(segment);
    }
  }

  /** Keeps a record the store refuses for good, beside the journal, and counts it as shipped. */
  deadLetter(record: GenerationRecord, reason: string): string {
    const path = join(this.#options.dir, 'dead-letter.jsonl');
    appendFileSync(path, `${JSON.stringify({ at: new Date().toISOString(), reason, record })}\n`);
    this.shipped([record.genId]);
    return path;
  }

  get unshipped(): number {
    return this.#unshipped.size + this.#linesFinished.size;
  }

  get unfinished(): number {
    return this.#open.size;
  }

  /** Why the journal cannot write right now (records are then not safe from a crash), or undefined. */
  get failure(): string | undefined {
    return this.#writeOutage.reason ?? this.#syncOutage.reason;
  }

  /** Writes what is buffered and closes; the directory is kept for the next start only if it holds anything. */
  close(): JournalBacklog {
    const backlog: JournalBacklog = {
      unshipped: this.unshipped,
      unfinished: this.unfinished,
      dir: this.#instance.path,
      failure: undefined,
    };
    if (this.#closed) return backlog;
    this.#journalProgress();
    this.#writeNow();
    backlog.failure = this.#writeOutage.reason;
    this.#closed = true;
    clearTimeout(this.#progressTimer);
    clearTimeout(this.#syncTimer);
    this.#unsynced = true;
    this.#closeSegment();
    if (backlog.unshipped === 0 && backlog.unfinished === 0) this.#instance.remove();
    else this.#instance.release();
    return backlog;
  }

  #append(line: string, finishedGenId?: string): void {
    this.#lines.push(line);
    if (finishedGenId !== undefined) this.#linesFinished.add(finishedGenId);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#writeNow());
  }

  /** One write of every buffered line; finished records count against the segment they landed in. */
  #writeNow(): void {
    this.#scheduled = false;
    if (this.#closed || (this.#lines.length === 0 && this.#waiters.length === 0 && this.#failed === ''))
      return;
    const rotation =
      this.#bytes >= this.#options.segmentBytes || this.#instance.lost ? this.#rotate() : undefined;
    const text = this.#failed + this.#lines.join('');
    const finished = this.#linesFinished;
    const waiters = this.#waiters;
    this.#lines = [];
    this.#linesFinished = new Set();
    this.#waiters = [];
    this.#failed = '';
    try {
      // After a write the disk cut short, the half line it left ends here: the lines that follow replay.
      this.#bytes += writeFully(this.#fd, this.#cut ? `\n${text}` : text);
      this.#cut = false;
      this.#unsynced = true;
      if (this.#syncTimer === undefined && this.#options.fsyncIntervalMs > 0) {
        this.#syncTimer = setTimeout(this.#syncDue, this.#options.fsyncIntervalMs);
        this.#syncTimer.unref();
      }
      if (rotation === undefined) this.#writeOutage.recovered();
      else this.#writeOutage.failed(rotation);
    } catch (error) {
      // The records are still queued in memory (only their crash safety is lost meanwhile), and their lines
      // are written again with the next write, up to a segment's size. Logged once per outage.
      this.#cut = true;
      if (text.length < this.#options.segmentBytes) this.#failed = text;
      this.#writeOutage.failed(error);
    }
    for (const genId of finished) {
      this.#unshipped.set(genId, this.#segment);
      this.#perSegment.set(this.#segment, (this.#perSegment.get(this.#segment) ?? 0) + 1);
    }
    const release = () => {
      for (const resolve of waiters) resolve();
    };
    if (this.#options.fsyncIntervalMs === 0 && waiters.length > 0) {
      fdatasync(this.#fd, (error) => {
        this.#synced(error);
        release();
      });
    } else release();
  }

  /**
   * Begins a new segment, carrying over the requests still running (so the old one can go once shipped).
   * Returns why a new segment could not be created (a full or read-only disk, the directory removed): the
   * journal then stays on the current one, and tries again at the next write.
   */
  #rotate(): unknown {
    let fd: number;
    try {
      fd = this.#openSegment(this.#segment + 1);
    } catch (error) {
      return error;
    }
    this.#closeSegment();
    this.#fd = fd;
    const old = this.#segment;
    this.#segment += 1;
    this.#bytes = 0;
    this.#cut = false;
    const carried: string[] = [];
    for (const request of this.#open.values()) {
      carried.push(beginLine(request.stub));
      if (request.progress) carried.push(progressLine(request.progress));
    }
    this.#lines = [...carried, ...this.#lines];
    if (!this.#perSegment.has(old)) this.#dropSegment(old);
    return undefined;
  }

  /**
   * Opens segment `n`; when the instance directory was removed under the running gateway, makes it again
   * first, so that what is journaled from now on is safe from a crash again.
   */
  #openSegment(n: number): number {
    const path = this.#instance.segmentPath(n);
    if (existsSync(this.#instance.path)) {
      // A directory the heartbeat could not touch but still there (a read-only disk): the open says why.
      const fd = openSync(path, 'a');
      this.#instance.lost = false;
      return fd;
    }
    this.#instance.recreate();
    this.#options.log(
      `record journal: directory ${this.#instance.path} was removed while the gateway ran; made again (${this.unshipped} records not yet in the store were journaled in it: they are still queued, but a crash before they are written loses them)`,
    );
    return openSync(path, 'a');
  }

  /** Syncs and closes the current segment; a failure (a disk gone bad) is logged, never thrown. */
  #closeSegment(): void {
    try {
      if (this.#unsynced) fdatasyncSync(this.#fd);
      this.#unsynced = false;
    } catch (error) {
      this.#syncOutage.failed(error);
    }
    try {
      closeSync(this.#fd);
    } catch (error) {
      this.#writeOutage.failed(error);
    }
  }

  #dropSegment(segment: number): void {
    this.#perSegment.delete(segment);
    if (segment === this.#segment) return;
    try {
      unlinkSync(this.#instance.segmentPath(segment));
    } catch {
      // Already gone.
    }
  }

  #journalProgress(): void {
    const at = new Date().toISOString();
    for (const request of this.#open.values()) {
      if (!request.dirty || !request.progress) continue;
      request.dirty = false;
      request.progress.at = at;
      this.#append(progressLine(request.progress));
    }
  }

  readonly #syncDue = (): void => {
    this.#syncTimer = undefined;
    this.#syncInBackground();
  };

  #syncInBackground(): void {
    if (!this.#unsynced || this.#closed) return;
    this.#unsynced = false;
    const fd = this.#fd;
    // A failed fsync (a disk gone bad) is said, not swallowed; a segment closed meanwhile was synced then.
    fdatasync(fd, (error) => {
      if (fd === this.#fd && !this.#closed) this.#synced(error);
    });
  }

  /** Counts a failed fsync (a disk gone bad) as an outage of the syncs, logged once; a good one ends it. */
  #synced(error: NodeJS.ErrnoException | null): void {
    if (error) this.#syncOutage.failed(error);
    else this.#syncOutage.recovered();
  }
}
