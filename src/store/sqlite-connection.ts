import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { InvalidRecordError, StoreUnavailableError } from './store-errors.js';

/**
 * WAL pages after which a commit checkpoints (SQLite's default is 1,000). A batch of 500 records rewrites about
 * 600 pages, so the default checkpoints, with two fsyncs, after nearly every batch; 4,000 (a WAL of about 16 MB)
 * checkpoints every few batches and writes each page rewritten meanwhile once. Measured in the README.
 */
export const SQLITE_WAL_CHECKPOINT_PAGES = 4_000;

/**
 * SQLite's page cache, in KiB: 2 MiB, SQLite's own default (better-sqlite3 builds it with 16 MB). The cache
 * fills as the records grow and is memory the process keeps (it was a third of the C heap at the bench's
 * peak); the pages that inserts touch (the right edges of time-ordered indexes) fit in 2 MiB, and a query that
 * reads more reads it from the operating system's file cache. Measured in the README.
 */
export const SQLITE_CACHE_KIB = 2_000;

/**
 * Opens (creating it and its directory when missing) the database at `filename`, or `:memory:`, in WAL mode
 * (readers never block the record writer) with the settings above.
 */
export function openSqlite(filename: string, busyTimeoutMs: number): Database.Database {
  if (filename !== ':memory:' && filename !== '') {
    mkdirSync(dirname(resolve(filename)), { recursive: true });
  }
  const db = new Database(filename);
  // `exec`, not `pragma()`: no statement object to be collected later (sqlite-kept.ts).
  db.exec(
    `PRAGMA busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))};
     PRAGMA journal_mode = WAL;
     PRAGMA synchronous = NORMAL;
     PRAGMA wal_autocheckpoint = ${SQLITE_WAL_CHECKPOINT_PAGES};
     PRAGMA foreign_keys = ON;
     PRAGMA cache_size = -${SQLITE_CACHE_KIB};`,
  );
  return db;
}

/**
 * Result codes that say the database file is busy, damaged or its disk failing, not that the rows are wrong:
 * the records wait in the journal (set aside as refused, every good record would go to the dead letter).
 */
const TRANSIENT_SQLITE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM|CORRUPT|NOTADB)/;

/** Which file a path names now (device and inode), or undefined when none does. */
export function fileIdentity(filename: string): string | undefined {
  try {
    const stat = statSync(filename);
    return `${stat.dev}:${stat.ino}`;
  } catch {
    return undefined;
  }
}

/** A failed write as the record queue needs to see it: wait (unavailable) or isolate (invalid rows). */
export function classifySqliteError(error: unknown): unknown {
  if (!(error instanceof Database.SqliteError)) return error;
  if (TRANSIENT_SQLITE.test(error.code)) {
    return new StoreUnavailableError(`SQLite is unavailable: ${error.message}`, { cause: error });
  }
  if (
    error.code.startsWith('SQLITE_CONSTRAINT') ||
    error.code === 'SQLITE_MISMATCH' ||
    error.code === 'SQLITE_TOOBIG'
  ) {
    return new InvalidRecordError(`SQLite refused the records: ${error.message}`, { cause: error });
  }
  return error;
}
