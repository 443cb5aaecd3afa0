import { afterEach, describe, expect, it } from 'vitest';
import { configEnv, type SpawnedGateway, spawnGateway } from '../../src/test-support/spawn-gateway.js';

/**
 * A log reader that stops (a full stdout pipe: a stalled collector, a container runtime that blocks) never
 * stops the gateway: it keeps answering, and SIGTERM still ends it (what waits for stdout is given up after a
 * moment instead of being retried for ever).
 */
let gateway: SpawnedGateway | undefined;
afterEach(() => {
  gateway?.child.kill('SIGKILL');
  gateway = undefined;
});

describe('a standard output nobody reads', () => {
  it('does not stop the gateway from answering, nor from exiting on SIGTERM', async () => {
    const key = 'sk-gw-log-backpressure-0123456789abcdef';
    gateway = await spawnGateway(configEnv({ organizations: [{ id: 'o', apiKeys: [key] }] }));
    const started = gateway;
    // From now on nothing reads its stdout: the pipe fills after 64 KiB of access lines.
    started.child.stdout?.pause();
    const models = () =>
      fetch(`${started.url}/models`, { headers: { authorization: `Bearer ${key}` } }).then(async (r) => {
        await r.arrayBuffer();
        return r.status;
      });
    // About 250 bytes of access line each: 2,000 requests are 500 KB, eight times what the pipe holds.
    for (let batch = 0; batch < 100; batch++) {
      const statuses = await Promise.all(Array.from({ length: 20 }, models));
      expect(statuses.every((status) => status === 200)).toBe(true);
    }
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  });
});
