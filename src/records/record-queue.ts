import type { Store } from '../store/store.js';
import type { GenerationRecord } from './generation-record.js';

export interface RecordQueueOptions {
  store: Store;
  /** Records held before new ones are refused (counted and logged, never silently). */
  maxPending?: number;
  flushIntervalMs?: number;
  batchSize?: number;
  log: (message: string) => void;
}

/**
 * Writes generation records off the request path: requests push, a timer writes batches in one transaction.
 * Records not yet written are still readable (`find`), so a record is visible as soon as its response ends.
 * `close()` writes everything that is left.
 */
export class RecordQueue {
  private readonly pending = new Map<string, GenerationRecord>();
  private readonly maxPending: number;
  private readonly batchSize: number;
  private readonly timer: NodeJS.Timeout;
  private flushing: Promise<void> | undefined;
  readonly metrics = { written: 0, refused: 0, writeFailures: 0 };

  constructor(private readonly options: RecordQueueOptions) {
    this.maxPending = options.maxPending ?? 50_000;
    this.batchSize = options.batchSize ?? 500;
    this.timer = setInterval(() => void this.flush(), options.flushIntervalMs ?? 100);
    this.timer.unref();
  }

  push(record: GenerationRecord): void {
    if (this.pending.size >= this.maxPending) {
      this.metrics.refused += 1;
      this.options.log(
        `record queue full (${this.maxPending} pending): record ${record.genId} refused; the store is not keeping up`,
      );
      return;
    }
    this.pending.set(record.genId, record);
  }

  /** A record that is queued but not yet written. */
  find(genId: string, orgId: string): GenerationRecord | undefined {
    const record = this.pending.get(genId);
    return record && record.orgId === orgId ? record : undefined;
  }

  get size(): number {
    return this.pending.size;
  }

  /** Writes what is pending; concurrent calls share one write. */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.pending.size === 0) return Promise.resolve();
    this.flushing = this.writeAll().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Stops the timer and writes everything left. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
    if (this.pending.size > 0) await this.flush();
  }

  private async writeAll(): Promise<void> {
    while (this.pending.size > 0) {
      const batch = [...this.pending.values()].slice(0, this.batchSize);
      try {
        await this.options.store.insertRecords(batch);
      } catch (error) {
        this.metrics.writeFailures += 1;
        this.options.log(`writing ${batch.length} records failed, will retry: ${(error as Error).message}`);
        return;
      }
      for (const record of batch) this.pending.delete(record.genId);
      this.metrics.written += batch.length;
    }
  }
}
