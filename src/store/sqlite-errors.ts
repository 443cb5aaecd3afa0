import Database from 'better-sqlite3';
import { InvalidRecordError, StoreUnavailableError } from './store-errors.js';

/** Result codes that say the database file is busy or its disk failing, not that the rows are wrong. */
const TRANSIENT_SQLITE = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM)/;

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
