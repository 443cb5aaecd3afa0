import type { Store } from '../store/store.js';
import { errorMessage, InvalidRecordError, StoreUnavailableError } from '../store/store-errors.js';
import type { GenerationRecord } from './generation-record.js';
import type { InterruptedRecordStub, RecordProgress } from './journal-entries.js';
import { normaliseRecord } from './normalise-record.js';
import type { RecordJournal } from './record-journal.js';

export interface RecordQueueOptions {
  store: Store;
  /** Crash safety: records are journaled before they are queued. Without one, a crash loses the queue. */
  journal?: RecordJournal;
  /** Records held in memory before new ones are kept in the journal only (counted and logged). */
  maxPending?: number;
  /** Longest wait of a record before its write to the store begins, ms. */
  flushIntervalMs?: number;
  batchSize?: number;
  /** Longest pause between two writes while the store is unavailable (the pause doubles from 100 ms). */
  retryMaxMs?: number;
  log: (message: string) => void;
}

/** A record the store refused alone this many times (for an unknown reason) is set aside. */
const STRIKES = 3;
const RETRY_MIN_MS = 100;

/**
 * Writes generation records off the request path: requests `finish`, a timer writes batches in one transaction
 * each, with a turn of the event loop between two (a backlog after a store outage never holds requests up for
 * longer than one batch). Records not yet written are still readable (`find`), so a record is visible as soon
 * as its response ends. Numbers a store would refuse are normalised first; a batch the store still refuses is split until the
 * record at fault is found and set aside (dead letter), so one bad record never blocks the others. While the
 * store is unavailable, writes are retried with backoff and every record stays in the journal.
 */
export class RecordQueue {
  private readonly pending = new Map<string, GenerationRecord>();
  private readonly strikes = new Map<string, number>();
  private readonly maxPending: number;
  private readonly batchSize: number;
  private readonly retryMaxMs: number;
  private readonly flushIntervalMs: number;
  /** Armed while records wait (an idle queue sets no timer, so an idle gateway is not woken). */
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private flushing: Promise<void> | undefined;
  private retryAt = 0;
  private retryDelayMs = 0;
  private overflowLogged = false;
  readonly metrics = { written: 0, refused: 0, writeFailures: 0, deadLettered: 0 };

  constructor(private readonly options: RecordQueueOptions) {
    this.maxPending = options.maxPending ?? 50_000;
    this.batchSize = options.batchSize ?? 500;
    this.retryMaxMs = options.retryMaxMs ?? 5_000;
    this.flushIntervalMs = options.flushIntervalMs ?? 100;
  }

  /** A request was accepted (journaled, so that a crash leaves an `interrupted` record of it). */
  begin(stub: InterruptedRecordStub): void {
    this.options.journal?.begin(stub);
  }

  /** What is known so far of a running request (cheap; journaled now and then). */
  progress(genId: string, progress: RecordProgress): void {
    this.options.journal?.progress(genId, progress);
  }

  /** What advances each time progress is journaled (`RecordJournal.progressEpoch`); none without a journal. */
  get progressClock(): { readonly progressEpoch: number } | undefined {
    return this.options.journal;
  }

  /**
   * The request's record: readable at once, written to the store within `flushIntervalMs` while the store is
   * up. Resolves once the record is in the journal: await it before the answer's last byte.
   */
  finish(record: GenerationRecord): Promise<void> {
    const sound = normaliseRecord(record);
    const journaled = this.options.journal?.finish(sound) ?? Promise.resolve();
    this.hold(sound);
    return journaled;
  }

  /** `finish` without waiting for the journal. */
  push(record: GenerationRecord): void {
    void this.finish(record);
  }

  /** Records replayed from the journal at start; held whatever `maxPending` says (they are owed to the store). */
  restore(records: Iterable<GenerationRecord>): void {
    for (const record of records) this.pending.set(record.genId, normaliseRecord(record));
    this.schedule();
  }

  /**
   * A record of this organization that is queued but not yet written; with `since` (ISO-8601, the
   * organization's `recreatedAt`) only one created at or after it, as `Store.getRecord`.
   */
  find(genId: string, orgId: string, since?: string): GenerationRecord | undefined {
    const record = this.pending.get(genId);
    if (!record || record.orgId !== orgId) return undefined;
    return since === undefined || Date.parse(record.createdAt) >= Date.parse(since) ? record : undefined;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Why the journal cannot write right now, or undefined (also when there is no journal). */
  get journalFailure(): string | undefined {
    return this.options.journal?.failure;
  }

  /** Whether the last write to the store failed because the store was unavailable. */
  get failing(): boolean {
    return this.retryDelayMs > 0;
  }

  /** Writes what is pending; concurrent calls share one write. Waits out the backoff unless `force`d. */
  flush(force = false): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.pending.size === 0 || (!force && Date.now() < this.retryAt)) return Promise.resolve();
    this.flushing = this.writeAll().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /**
   * Stops the timer and writes what is left, trying until `deadlineMs` has passed while the store is
   * unavailable. Returns how many held records could not be written (they stay in the journal for the next
   * start, with any that `maxPending` kept out of memory).
   */
  async close(deadlineMs = 5_000): Promise<number> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      // A store that never answers (paused, partitioned) must not hold the shutdown: what is not written by
      // the deadline stays in the journal for the next start.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
      });
      await Promise.race([this.flush(true), late]);
      clearTimeout(timer);
      if (this.pending.size === 0 || Date.now() >= deadline) break;
      const pause = Math.min(this.retryDelayMs || RETRY_MIN_MS, deadline - Date.now());
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, pause)));
    }
    return this.pending.size;
  }

  private hold(record: GenerationRecord): void {
    if (this.pending.size >= this.maxPending && !this.pending.has(record.genId)) {
      // Kept in the journal (if any) and written at the next start; never silently.
      this.metrics.refused += 1;
      if (!this.overflowLogged) {
        this.overflowLogged = true;
        const kept = this.options.journal ? 'kept in the journal until the next start' : 'lost (no journal)';
        this.options.log(
          `record queue full (${this.maxPending} pending, store not keeping up): further records are ${kept}`,
        );
      }
      return;
    }
    this.pending.set(record.genId, record);
    this.schedule();
  }

  /**
   * Arms the timer that writes what is pending, `flushIntervalMs` from now (or when the backoff after a failed
   * write ends), unless it is armed already; after each write it is armed again while records still wait.
   */
  private schedule(): void {
    if (this.timer !== undefined || this.closed || this.pending.size === 0) return;
    this.timer = setTimeout(this.tick, Math.max(this.flushIntervalMs, this.retryAt - Date.now()));
    this.timer.unref();
  }

  private readonly tick = (): void => {
    this.timer = undefined;
    void this.flush().finally(() => this.schedule());
  };

  private async writeAll(): Promise<void> {
    for (let first = true; this.pending.size > 0; first = false) {
      // Between two batches, whatever else waits (requests, answers) runs first.
      if (!first) await new Promise((resolve) => setImmediate(resolve));
      const batch: GenerationRecord[] = [];
      for (const record of this.pending.values()) {
        batch.push(record);
        if (batch.length === this.batchSize) break;
      }
      const outcome = await this.write(batch);
      if (outcome === 'unavailable') {
        this.metrics.writeFailures += 1;
        this.retryDelayMs = Math.min(this.retryMaxMs, Math.max(RETRY_MIN_MS, this.retryDelayMs * 2));
        this.retryAt = Date.now() + this.retryDelayMs;
        return;
      }
      this.retryDelayMs = 0;
      this.retryAt = 0;
      if (outcome === 'stuck') return;
    }
  }

  /**
   * Writes a batch; when the store refuses it, halves it until the refused record is alone. `stuck`: a
   * record failed alone for an unknown reason and waits for its next strike.
   */
  private async write(batch: GenerationRecord[]): Promise<'written' | 'unavailable' | 'stuck'> {
    try {
      await this.options.store.insertRecords(batch);
    } catch (error) {
      if (error instanceof StoreUnavailableError) return 'unavailable';
      if (batch.length === 1 && batch[0]) return this.refusedAlone(batch[0], error);
      const half = Math.ceil(batch.length / 2);
      const first = await this.write(batch.slice(0, half));
      if (first === 'unavailable') return first;
      const second = await this.write(batch.slice(half));
      return first === 'stuck' || second === 'stuck' ? 'stuck' : second;
    }
    for (const record of batch) this.pending.delete(record.genId);
    this.options.journal?.shipped(batch.map((record) => record.genId));
    this.metrics.written += batch.length;
    return 'written';
  }

  private refusedAlone(record: GenerationRecord, error: unknown): 'written' | 'stuck' {
    const strikes = (this.strikes.get(record.genId) ?? 0) + 1;
    if (!(error instanceof InvalidRecordError) && strikes < STRIKES) {
      this.strikes.set(record.genId, strikes);
      return 'stuck';
    }
    this.strikes.delete(record.genId);
    this.pending.delete(record.genId);
    this.metrics.deadLettered += 1;
    const kept = this.options.journal ? this.deadLetter(record, error) : 'dropped (no journal)';
    this.options.log(
      `generation record ${record.genId} refused by the store (${errorMessage(error)}); ${kept}`,
    );
    return 'written';
  }

  /**
   * Sets a refused record aside in the dead letter; where that file cannot be written (a full disk), the
   * record stays unshipped in the journal and is tried again at the next start: never a crash, never lost.
   */
  private deadLetter(record: GenerationRecord, error: unknown): string {
    try {
      return `kept in ${this.options.journal?.deadLetter(record, errorMessage(error))}`;
    } catch (failure) {
      return `left in the journal for the next start (the dead letter could not be written: ${errorMessage(failure)})`;
    }
  }
}
