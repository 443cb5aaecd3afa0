import { Client } from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { startPostgres, type TestPostgres } from './start-postgres.js';

/**
 * One private PostgreSQL server for the enclosing suite (started in `beforeAll`, stopped in `afterAll`), and
 * a function that creates a new, empty database on it (`<prefix>_<n>`) and returns its URL, so that every
 * store a test opens starts from nothing.
 */
export function usePostgresDatabases(prefix: string): () => Promise<string> {
  let server: TestPostgres | undefined;
  let admin: Client | undefined;
  let databases = 0;

  beforeAll(async () => {
    server = await startPostgres();
    if (!server) throw new Error('PostgreSQL binaries were found but the server did not start');
    admin = new Client({ connectionString: server.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.end();
    await server?.stop();
  });

  return async () => {
    if (!server || !admin) throw new Error('the test server is not running');
    const name = `${prefix}_${++databases}`;
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(server.url);
    url.pathname = `/${name}`;
    return url.href;
  };
}
