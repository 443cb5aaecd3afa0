import type { Server } from 'node:http';
import { ConfigError } from '../config/load-config.js';
import { openStore, sqliteFilename } from '../store/open-store.js';
import type { Store } from '../store/store.js';

/** A reason the gateway cannot start, phrased for the operator; printed as one line, without a stack. */
export class StartupError extends Error {
  override name = 'StartupError';
}

/** Opens the store, naming the database (never a password) when it cannot be opened or reached. */
export async function openStoreForStart(
  databaseUrl: string,
  options?: Parameters<typeof openStore>[1],
): Promise<Store> {
  try {
    return await openStore(databaseUrl, options);
  } catch (error) {
    throw new StartupError(`cannot use the database ${describeDatabase(databaseUrl)}: ${messageOf(error)}`);
  }
}

/** Fails when Redis does not answer a PING within `timeoutMs`, with one connection attempt and no retries. */
export async function assertRedisReachable(redisUrl: string, timeoutMs: number): Promise<void> {
  // The Redis client is loaded only when it is used.
  const { Redis } = await import('ioredis');
  const redis = new Redis(redisUrl, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  let failure: unknown;
  // Errors are reported below; without a listener ioredis would print each with its stack.
  redis.on('error', (error: unknown) => {
    failure ??= error;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    throw new StartupError(
      `cannot reach Redis at ${describeRedis(redisUrl)}: ${messageOf(failure ?? error)}`,
    );
  } finally {
    redis.disconnect();
  }
}

/** Starts listening; a port in use or not allowed is a StartupError naming it. */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (error: unknown) => {
      const code = error instanceof Error && 'code' in error ? String(error.code) : '';
      const reason =
        code === 'EADDRINUSE'
          ? 'the port is already in use'
          : code === 'EACCES'
            ? 'permission denied'
            : messageOf(error);
      reject(new StartupError(`cannot listen on ${host}:${port}: ${reason}`));
    });
    server.listen(port, host, () => resolve());
  });
}

/**
 * The one line `main` prints for an error that stopped the start: the message of an error the gateway
 * raised (a multi-line config report joined with "; "), never a stack trace.
 */
export function startupFailureLine(error: unknown): string {
  const message = messageOf(error);
  const oneLine = message
    .split('\n')
    .map((line) => line.trim().replace(/^- /, ''))
    .filter((line) => line.length > 0)
    .join('; ')
    .replace(/:;/g, ':');
  const known = error instanceof StartupError || error instanceof ConfigError;
  return known ? `gateway: ${oneLine}` : `gateway: cannot start: ${oneLine}`;
}

function describeDatabase(databaseUrl: string): string {
  try {
    const filename = sqliteFilename(databaseUrl);
    if (filename !== undefined) return `sqlite:${filename}`;
  } catch {
    return 'DATABASE_URL';
  }
  return describeServer(databaseUrl, 'DATABASE_URL');
}

function describeRedis(redisUrl: string): string {
  return describeServer(redisUrl, 'REDIS_URL');
}

/** `scheme://host:port`, without user or password; the variable's name when the URL does not parse. */
function describeServer(url: string, variable: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}`;
  } catch {
    return variable;
  }
}

function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return messageOf(error.errors[0]);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
