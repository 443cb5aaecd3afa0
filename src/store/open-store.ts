import { fileURLToPath } from 'node:url';
import type { PostgresStoreOptions } from './postgres-store.js';
import { SqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const EXPECTED = 'sqlite:PATH, sqlite::memory:, file:PATH or postgres://USER@HOST/DB';

/**
 * The SQLite filename named by a `sqlite:` or `file:` database URL: `sqlite:./data/gateway.db` (relative to the
 * working directory), `sqlite:/abs/path.db`, `sqlite:///abs/path.db`, `sqlite::memory:`, `file:PATH`,
 * `file:///abs/path.db`. Undefined for any other scheme.
 */
export function sqliteFilename(databaseUrl: string): string | undefined {
  const scheme = SCHEME.exec(databaseUrl)?.[1]?.toLowerCase();
  if (scheme !== 'sqlite' && scheme !== 'file') return undefined;
  if (scheme === 'file' && databaseUrl.slice(0, 7).toLowerCase() === 'file://') {
    return fileURLToPath(databaseUrl);
  }
  let rest = databaseUrl.slice(scheme.length + 1);
  if (rest.startsWith('//')) rest = rest.slice(2);
  if (rest === '') throw new Error(`database URL "${databaseUrl}" names no file`);
  return rest;
}

/** How to open a store: outage log lines and, for PostgreSQL, the pool's limits. */
export type OpenStoreOptions = Pick<
  PostgresStoreOptions,
  'log' | 'maxConnections' | 'connectTimeoutMs' | 'queryTimeoutMs' | 'attempts'
>;

/**
 * Opens the store named by `DATABASE_URL` and brings its schema up to date, so callers get a ready Store
 * and never depend on a concrete implementation: `sqlite:` / `file:` open a SqliteStore, `postgres://` /
 * `postgresql://` a PostgresStore. Error messages name the scheme, never the whole URL (it may hold a password).
 */
export async function openStore(databaseUrl: string, options: OpenStoreOptions = {}): Promise<Store> {
  const filename = sqliteFilename(databaseUrl);
  const scheme = SCHEME.exec(databaseUrl)?.[1]?.toLowerCase();
  const postgres = scheme === 'postgres' || scheme === 'postgresql';
  if (filename === undefined && !postgres) {
    throw new Error(
      scheme === undefined
        ? `DATABASE_URL has no scheme; expected ${EXPECTED}`
        : `DATABASE_URL scheme "${scheme}:" is not supported; expected ${EXPECTED}`,
    );
  }
  // The PostgreSQL driver is loaded only when it is used.
  const store: Store =
    filename === undefined
      ? new (await import('./postgres-store.js')).PostgresStore(databaseUrl, options)
      : new SqliteStore(filename, { log: options.log });
  try {
    await store.migrate();
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
