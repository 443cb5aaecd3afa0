import { createHash } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import type { GatewayConfig } from '../config/config-schema.js';
import { RecordJournal } from '../records/record-journal.js';
import { RecordQueue } from '../records/record-queue.js';
import { sqliteFilename } from '../store/open-store.js';
import type { Store } from '../store/store.js';

export interface StopReport {
  /** Records not in the store at exit: kept in the journal and written at the next start. */
  pendingRecords: number;
  journalDir: string;
  /** Why the journal could not write at the end, if it could not (records in neither place are lost). */
  journalFailure?: string;
}

/** Where the record journal lives by default: beside the SQLite file, else `./data/journal`. */
export function defaultJournalDir(databaseUrl: string): string {
  const file = sqliteFilename(databaseUrl);
  return file === undefined || file === ':memory:' ? join('data', 'journal') : join(dirname(file), 'journal');
}

/**
 * The store a journal's records are for, as its owner file names it: a SQLite file by its absolute path, a
 * PostgreSQL database by host, port, user and database (never its password), hashed. Two gateways on two
 * databases that share a journal root (the default `data/journal` of one working directory) then never
 * replay each other's records: a killed one's records went to the other's database, and were lost from its
 * own.
 */
export function journalStoreName(databaseUrl: string): string {
  const file = sqliteFilename(databaseUrl);
  const name = file === undefined ? withoutPassword(databaseUrl) : `sqlite:${resolve(file)}`;
  return createHash('sha256').update(name).digest('hex').slice(0, 32);
}

/** A PostgreSQL URL without its password (one that does not parse names no particular database). */
function withoutPassword(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    url.password = '';
    return url.toString();
  } catch {
    return 'postgres:unparsed';
  }
}

/**
 * The record queue with its crash journal; records a previous run left in the journal (finished, or
 * `interrupted` for requests it did not live to finish) are queued for the store.
 */
export function openRecords(
  config: GatewayConfig,
  store: Store,
  databaseUrl: string,
  log: (message: string) => void,
) {
  const settings = config.records;
  const { journal, replayed } = RecordJournal.open({
    dir: settings.journalDir ?? defaultJournalDir(databaseUrl),
    segmentBytes: settings.journalSegmentBytes,
    fsyncIntervalMs: settings.journalFsyncIntervalMs,
    progressIntervalMs: settings.progressIntervalMs,
    store: journalStoreName(databaseUrl),
    log,
  });
  const records = new RecordQueue({ store, journal, ...settings, log });
  records.restore(replayed);
  if (replayed.length > 0) {
    const interrupted = replayed.filter((record) => record.status === 'interrupted').length;
    log(
      `record journal: ${replayed.length} records of a previous run queued for the store (${interrupted} interrupted)`,
    );
  }
  return { journal, records };
}
