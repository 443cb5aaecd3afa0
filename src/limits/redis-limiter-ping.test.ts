import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { refusedPort } from '../test-support/refused-port.js';
import { RedisLimiter } from './redis-limiter.js';

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

describe('RedisLimiter.ping', () => {
  it('rejects when Redis is unreachable', async () => {
    const limiter = new RedisLimiter({
      redis: `redis://127.0.0.1:${await refusedPort()}`,
      spendSource: async () => 0,
    });
    await expect(limiter.ping(300)).rejects.toThrow();
    await limiter.close().catch(() => undefined);
  });

  it('rejects by its own timeout when Redis accepts the connection and never answers', async () => {
    // A server that takes the connection and stays silent: nothing but a timer can end the ping. The command
    // timeout is a minute, so the message names which timer fired (the ping's 300 ms), not how long it took.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const address = silent.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const limiter = new RedisLimiter({
      redis: `redis://127.0.0.1:${port}`,
      spendSource: async () => 0,
      commandTimeoutMs: 60_000,
    });
    const error = await failureOf(limiter.ping(300));
    expect(error).toBeInstanceOf(Error);
    expect(error).toHaveProperty('message', 'Redis did not answer PING within 300 ms');
    await limiter.close().catch(() => undefined);
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });
});
