import type { Store } from '../store/store.js';
import { errorMessage } from '../store/store-errors.js';

export interface RecordRetentionOptions {
  store: Pick<Store, 'pruneRecords'>;
  /** Records older than this many days are deleted; 0 keeps them forever (nothing is started). */
  retentionDays: number;
  /** Time between two pruning runs; the first runs at once. */
  intervalMs: number;
  log: (message: string) => void;
  /** Clock; injectable for tests. */
  now?: () => Date;
}

export interface RecordRetention {
  /** Stops the timer and waits for a run in progress, so the store can be closed after it. */
  stop(): Promise<void>;
}

const DAY_MS = 86_400_000;

/**
 * Deletes generation records older than `records.retentionDays` in the background: once at start, then every
 * `intervalMs`, never two runs at once. The timer does not keep the process alive. A failed run (the store
 * unavailable) is one log line and is tried again at the next interval; daily rollups are never pruned.
 */
export function startRecordRetention(options: RecordRetentionOptions): RecordRetention {
  if (options.retentionDays === 0) return { stop: async () => undefined };
  const now = options.now ?? (() => new Date());
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = () => {
    if (running || stopped) return;
    const before = new Date(now().getTime() - options.retentionDays * DAY_MS).toISOString();
    running = options.store
      .pruneRecords(before)
      .then((deleted) => {
        if (deleted > 0) options.log(`record retention: deleted ${deleted} records created before ${before}`);
      })
      .catch((error: unknown) => options.log(`record retention: pruning failed: ${errorMessage(error)}`))
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(run, 0);
  const timer = setInterval(run, options.intervalMs);
  first.unref();
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
