import { afterEach, describe, expect, it } from 'vitest';
import { configEnv, type SpawnedGateway, spawnGateway } from '../../src/test-support/spawn-gateway.js';

/**
 * `server.heapGrowthPercent` reaches V8: with `--trace-gc-verbose` V8 prints, at every full collection, the
 * old generation's new limit and the factor it used ("[HeapController] Limit: … (1.3)"); `--gc-global` makes
 * every collection a full one, so the gateway's own allocations after it listens produce such lines at once.
 */
describe('heap growth (server.heapGrowthPercent)', () => {
  let gateway: SpawnedGateway | undefined;
  afterEach(() => {
    gateway?.child.kill('SIGKILL');
    gateway = undefined;
  });

  /** The factors of the full collections logged after the gateway said it listens, once there are some. */
  async function factorsAfterListening(server: Record<string, unknown>): Promise<string[]> {
    const config = {
      organizations: [{ id: 'o', apiKeys: ['sk-gw-heap-growth-0123456789abcdef0123'] }],
      server,
    };
    gateway = await spawnGateway(configEnv(config), 30_000, ['--trace-gc-verbose', '--gc-global']);
    const started = gateway;
    const factors = () => {
      const after = started.output().split('listening on')[1] ?? '';
      return [...after.matchAll(/\[HeapController\] Limit: .*\((\d+\.\d)\)/g)].map((match) => match[1] ?? '');
    };
    // Requests allocate, and with --gc-global every collection they cause is a full one.
    for (let i = 0; i < 200 && factors().length === 0; i++) {
      await (await fetch(started.url.replace(/\/v1$/, '/health'))).arrayBuffer();
    }
    return factors();
  }

  it('limits growth to 30 % by default', async () => {
    const factors = await factorsAfterListening({});
    expect(factors.length).toBeGreaterThan(0);
    expect(new Set(factors)).toEqual(new Set(['1.3']));
  });

  it('takes the configured percentage', async () => {
    const factors = await factorsAfterListening({ heapGrowthPercent: 75 });
    expect(factors.length).toBeGreaterThan(0);
    expect(new Set(factors)).toEqual(new Set(['1.8']));
  });
});
