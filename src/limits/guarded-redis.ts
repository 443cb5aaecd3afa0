import { Redis } from 'ioredis';
import { serviceUnavailable } from '../errors/gateway-error.js';
import { OutageReporter } from './outage-reporter.js';

export interface GuardedRedisOptions {
  /** A connection to share (left open by `close()`), or a `redis://` URL to connect to (closed by `close()`). */
  redis: Redis | string;
  /** How long one command (or the wait for a connection) may take before the request gets 503. */
  commandTimeoutMs: number;
  log: (line: string) => void;
  /** How outage lines name the connection and what an outage means (default: Redis, requests answer 503). */
  outage?: { name: string; effect: string };
}

/** Replies of a server that is up but cannot serve yet (loading, failing over): an outage, not a bug. */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY)\b/;

/** True for failures of the connection (refused, closed, timed out) rather than of the command itself. */
function isOutage(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name !== 'ReplyError' || TRANSIENT_REPLY.test(error.message);
}

/**
 * A Redis connection that fails fast: while Redis is down, a command fails within `commandTimeoutMs` (no
 * offline queue, no retries per request, ioredis' long back-off never reaches a request) with a GatewayError
 * 503 `service_unavailable` and `retry-after: 1`; the connection keeps reconnecting in the background (at most
 * one second apart), so recovery needs nobody. An outage logs one line when it starts and one when it ends.
 */
export class GuardedRedis {
  readonly redis: Redis;
  private readonly ownsConnection: boolean;
  private readonly outage: OutageReporter;
  private readonly commandTimeoutMs: number;
  private readyWait: Promise<void> | undefined;
  private readonly onReady = () => this.outage.recovered();
  private readonly onError = (error: Error) => this.outage.failed(error.message);

  constructor(options: GuardedRedisOptions) {
    this.commandTimeoutMs = options.commandTimeoutMs;
    this.ownsConnection = typeof options.redis === 'string';
    this.redis =
      typeof options.redis === 'string'
        ? new Redis(options.redis, {
            commandTimeout: options.commandTimeoutMs,
            connectTimeout: Math.max(options.commandTimeoutMs, 1_000),
            enableOfflineQueue: false,
            maxRetriesPerRequest: 0,
            retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
          })
        : options.redis;
    this.outage = options.outage
      ? new OutageReporter(options.outage.name, options.log, Date.now, options.outage.effect)
      : new OutageReporter('Redis', options.log);
    // Listening to 'error' also keeps ioredis from printing every failed reconnection attempt.
    this.redis.on('error', this.onError);
    this.redis.on('ready', this.onReady);
  }

  /** Runs Redis commands; an outage becomes a 503 GatewayError, any other failure is thrown as it is. */
  run<T>(command: (redis: Redis) => Promise<T>): Promise<T> {
    // The usual case (connected) without an extra await: settles sit on the request's path to its record.
    const attempt = () =>
      command(this.redis).then(
        (result) => {
          this.outage.recovered();
          return result;
        },
        (error: unknown) => {
          if (!isOutage(error)) throw error;
          this.outage.failed(error instanceof Error ? error.message : String(error));
          throw this.unavailable(error);
        },
      );
    return this.redis.status === 'ready' ? attempt() : this.waitUntilReady().then(attempt);
  }

  async close(): Promise<void> {
    this.redis.off('error', this.onError);
    this.redis.off('ready', this.onReady);
    if (!this.ownsConnection) return;
    // Quitting needs a connection; without one, just stop reconnecting.
    if (this.redis.status === 'ready') await this.redis.quit().catch(() => this.redis.disconnect());
    else this.redis.disconnect();
  }

  private unavailable(cause: unknown) {
    return serviceUnavailable(
      'Redis, which holds the shared limits, is unavailable; try again shortly.',
      1,
      cause,
    );
  }

  /** Ready now, or within the command timeout (first connection); during a known outage, fails at once. */
  private waitUntilReady(): Promise<void> {
    if (this.redis.status === 'ready') return Promise.resolve();
    if (this.outage.down || this.redis.status === 'end') return Promise.reject(this.unavailable(undefined));
    this.readyWait ??= new Promise<void>((resolve, reject) => {
      const finish = (error: Error | undefined) => {
        clearTimeout(timer);
        this.redis.off('ready', ready);
        this.redis.off('error', failed);
        this.readyWait = undefined;
        if (error) reject(error);
        else resolve();
      };
      const ready = () => finish(undefined);
      const failed = (error: Error) => finish(error);
      const timer = setTimeout(
        () => finish(new Error(`no connection within ${this.commandTimeoutMs} ms`)),
        this.commandTimeoutMs,
      );
      this.redis.on('ready', ready);
      this.redis.on('error', failed);
    });
    return this.readyWait.catch((error: unknown) => {
      this.outage.failed(error instanceof Error ? error.message : String(error));
      throw this.unavailable(error);
    });
  }
}
