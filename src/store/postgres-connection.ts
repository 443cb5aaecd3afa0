import { DatabaseError, Pool, type PoolClient } from 'pg';
import { OutageLog } from './outage-log.js';
import { errorMessage, StoreUnavailableError } from './store-errors.js';

export type Row = Record<string, unknown>;

export interface PostgresConnectionOptions {
  /** Most connections the pool opens. */
  maxConnections: number;
  /** How long opening a connection may take before the attempt fails. */
  connectTimeoutMs: number;
  /**
   * How long a query may wait for its answer on an open connection; then it fails as the connection would,
   * and the connection is dropped (a late answer can never be read as the next query's).
   */
  queryTimeoutMs: number;
  /** Attempts of one query or transaction when the connection fails (1 = no retry). */
  attempts: number;
  /** Outage lines (one when PostgreSQL becomes unreachable, one when it is back). */
  log: (message: string) => void;
}

/** Pause before the second, third… attempt: short, a restarted server accepts within a few hundred ms. */
const RETRY_DELAY_MS = 100;

/**
 * SQLSTATE classes that say the connection or the server failed, not the statement: 08 connection exception,
 * 53 insufficient resources, 57P admin shutdown / crash shutdown / cannot connect now, 58 system error (an I/O
 * error of the server's disk), 25006 a server that takes no writes (a demoted primary, a standby, read-only
 * set by an operator); and the two transaction conflicts that a retry resolves (40001 serialization failure,
 * 40P01 deadlock).
 */
const TRANSIENT_SQLSTATE = /^(08|53|57P|58|25006$|40001$|40P01$)/;
const TRANSIENT_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const TRANSIENT_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|not queryable|Connection ended|Query read timeout/i;

/** Whether a pg error means "the database is unreachable right now" rather than "this statement is wrong". */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof DatabaseError) return TRANSIENT_SQLSTATE.test(error.code ?? '');
  if (!(error instanceof Error)) return false;
  const code = 'code' in error && typeof error.code === 'string' ? error.code : '';
  if (TRANSIENT_SOCKET_CODES.has(code)) return true;
  if (error instanceof AggregateError) return error.errors.some(isConnectionError);
  return TRANSIENT_MESSAGES.test(error.message);
}

/** Longest timer Node sets (about 24.8 days): a query timeout that never ends a query. */
const NO_QUERY_TIMEOUT_MS = 2_147_483_647;

/** `client` whose `query(text, values)` waits for its answer however long it takes. */
function withoutQueryTimeout(client: PoolClient): PoolClient {
  const query = (text: string, values?: unknown[]) =>
    client.query({ text, values, query_timeout: NO_QUERY_TIMEOUT_MS } as {
      text: string;
      values?: unknown[];
    });
  return Object.assign(Object.create(client) as PoolClient, { query });
}

/**
 * A pg Pool that cannot crash the process and retries what a restart interrupts. pg emits `'error'` on a
 * client whose connection drops; an idle client is covered by the pool's listener, a checked-out one is not
 * (an unhandled `'error'` event kills Node), so every checked-out client gets a listener for as long as it is
 * out. Queries and transactions that fail on the connection are retried a bounded number of times, then
 * rejected as StoreUnavailableError; the outage is logged once when it starts and once when it ends.
 */
export class PostgresConnection {
  readonly #pool: Pool;
  readonly #attempts: number;
  readonly #outage: OutageLog;

  constructor(connectionString: string, options: PostgresConnectionOptions) {
    this.#pool = new Pool({
      connectionString,
      max: options.maxConnections,
      connectionTimeoutMillis: options.connectTimeoutMs,
      query_timeout: options.queryTimeoutMs,
      keepAlive: true,
    });
    this.#attempts = Math.max(1, options.attempts);
    this.#outage = new OutageLog('PostgreSQL', options.log);
    // An idle pooled connection that drops (server restart) is removed by the pool; it only tells us.
    this.#pool.on('error', (error) => this.#outage.failed(error));
  }

  /** Whether PostgreSQL is currently failing. */
  get down(): boolean {
    return this.#outage.down;
  }

  /** One statement on any pooled connection. */
  query(sql: string, values: unknown[] = []): Promise<Row[]> {
    return this.#withRetry(async () => (await this.#pool.query<Row>(sql, values)).rows);
  }

  /**
   * Runs `work` between BEGIN and COMMIT on one connection; rolls back when it throws. `work` may run more
   * than once (after a connection failure), so it must not have effects outside the transaction. `begin` may
   * add settings to the BEGIN round trip (`BEGIN; SET LOCAL …`).
   */
  transaction(work: (client: PoolClient) => Promise<void>, begin = 'BEGIN'): Promise<void> {
    return this.#withRetry(() => this.#transactionOnce(work, begin));
  }

  /**
   * A transaction whose statements may each take long: `work`'s queries have no `queryTimeoutMs` (schema
   * migrations copy and index every record, and wait on another instance's migration lock; with the
   * timeout, an upgrade of a large database failed its start).
   */
  unboundedTransaction(work: (client: PoolClient) => Promise<void>): Promise<void> {
    return this.transaction((client) => work(withoutQueryTimeout(client)));
  }

  get ending(): boolean {
    return this.#pool.ending;
  }

  async end(): Promise<void> {
    if (!this.#pool.ending) await this.#pool.end();
  }

  async #withRetry<T>(run: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const result = await run();
        this.#outage.recovered();
        return result;
      } catch (error) {
        if (!isConnectionError(error)) {
          // The server answered (with a refusal): it is up.
          this.#outage.recovered();
          throw error;
        }
        // During a known outage one attempt is enough: requests get their 503 at once, not after the retries.
        if (attempt >= this.#attempts || this.#pool.ending || this.#outage.down) {
          this.#outage.failed(error);
          throw new StoreUnavailableError(`PostgreSQL is unavailable: ${errorMessage(error)}`, {
            cause: error,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, RETRY_DELAY_MS * attempt));
      }
    }
  }

  async #transactionOnce(work: (client: PoolClient) => Promise<void>, begin: string): Promise<void> {
    const client = await this.#pool.connect();
    // The error a dropped connection emits while checked out; the running query rejects as well.
    let dropped: Error | undefined;
    const onError = (error: Error) => {
      dropped = error;
    };
    client.on('error', onError);
    // A connection whose ROLLBACK failed is in an unknown state: it is discarded, not returned to the pool.
    let broken: Error | undefined;
    try {
      await client.query(begin);
      await work(client);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch((rollbackError: unknown) => {
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      });
      throw error;
    } finally {
      client.release(broken ?? dropped);
      // After release the pool's own listener is attached (also to a discarded client), so ours can go.
      client.removeListener('error', onError);
    }
  }
}
