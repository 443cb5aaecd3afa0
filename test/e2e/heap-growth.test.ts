import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  configEnv,
  type SpawnedGateway,
  spawnGateway,
  startNodeOptions,
} from '../../src/test-support/spawn-gateway.js';

/** `[HeapController] Limit: old size: A KB, new limit: B KB` and, where V8 prints it (V8 < 13), `(factor)`. */
const LIMIT_LINE = /\[HeapController\] Limit: old size: (\d+) KB, new limit: (\d+) KB(?: \((\d+\.\d)\))?/g;

/**
 * `server.heapGrowthPercent` reaches V8. With `--trace-gc-verbose` V8 prints, at every full collection, the
 * old generation's size and its next limit; `--gc-global` makes every collection a full one.
 */
describe('heap growth (server.heapGrowthPercent)', () => {
  let gateway: SpawnedGateway | undefined;
  afterEach(() => {
    gateway?.child.kill('SIGKILL');
    gateway = undefined;
  });

  /**
   * The full collections after the gateway said it listens, once there are some: the old generation's size
   * each kept (KB) and the factor printed for its next limit.
   */
  async function collectionsAfterListening(
    server: Record<string, unknown>,
  ): Promise<{ sizeKb: number; factor: string | undefined }[]> {
    const config = {
      organizations: [{ id: 'o', apiKeys: ['sk-gw-heap-growth-0123456789abcdef0123'] }],
      server,
    };
    gateway = await spawnGateway(configEnv(config), 30_000, [
      ...startNodeOptions(),
      '--trace-gc-verbose',
      '--gc-global',
    ]);
    const started = gateway;
    const factors = () => {
      const after = started.output().split('listening on')[1] ?? '';
      // Complete lines only: the last one may still be arriving (its factor not yet written).
      const complete = after.slice(0, after.lastIndexOf('\n') + 1);
      return [...complete.matchAll(LIMIT_LINE)].map((match) => ({
        sizeKb: Number(match[1]),
        factor: match[3],
      }));
    };
    // Requests allocate, and with --gc-global every collection they cause is a full one. Each carries a
    // 256 KB body (parsed, then refused for its unknown model), so collections come within a few dozen; V8
    // writes its trace through C's buffered stdout, so the loop runs until a whole line has arrived.
    const body = JSON.stringify({ model: 'no/such-model', input: 'x'.repeat(256 * 1024) });
    for (let i = 0; i < 3_000 && factors().length === 0; i++) {
      const response = await fetch(`${started.url}/embeddings`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${config.organizations[0]?.apiKeys[0]}`,
          'content-type': 'application/json',
        },
        body,
      });
      await response.arrayBuffer();
    }
    return factors();
  }

  it.for<[Record<string, unknown>, string]>([
    [{ heapHeadroomMb: 0 }, '1.3'],
    [{ heapGrowthPercent: 75, heapHeadroomMb: 0 }, '1.8'],
  ])('the gateway started with server %j grows its heap by %s', async ([server, factor], context) => {
    const factors = (await collectionsAfterListening(server)).map((collection) => collection.factor);
    expect(factors.length).toBeGreaterThan(0);
    // V8 13 (Node 24) no longer prints the factor; the test below checks the effect on every version.
    if (factors.every((printed) => printed === undefined)) context.skip();
    expect(new Set(factors)).toEqual(new Set([factor]));
  });

  it('by default a small heap gets 16 MB of room (server.heapHeadroomMb), more than 30 % of it', async (context) => {
    const collections = await collectionsAfterListening({});
    expect(collections.length).toBeGreaterThan(0);
    if (collections.every((collection) => collection.factor === undefined)) context.skip();
    const roomsMb = collections.map(({ sizeKb, factor }) => ((Number(factor) - 1) * sizeKb) / 1024);
    for (const [i, { sizeKb, factor }] of collections.entries()) {
      // The gateway at rest keeps far less than the 53 MB of which 30 % would be 16 MB.
      expect(sizeKb).toBeLessThan(53 * 1024);
      expect(Number(factor)).toBeGreaterThan(1.3);
      // The factor is chosen before V8 knows what it keeps, and printed to one decimal: about 16 MB.
      expect(roomsMb[i]).toBeGreaterThan(12);
      expect(roomsMb[i]).toBeLessThan(21);
    }
  });

  it('limitHeapGrowth sets the factor V8 applies to the next limit (any Node version)', () => {
    // Two processes with the same 150 MB alive: V8's next limit is size × factor plus an allowance for the
    // young generation that differs between V8 versions but not between the two, so the ratios of limit to
    // size differ by the factors' difference, 4.0 − 1.3 (they would be equal if the flag did not take).
    const ratioAfterGc = (percent: number) => {
      const script = `
        import { limitHeapGrowth } from './dist/app/heap-growth.js';
        globalThis.kept = Array.from({ length: 150 }, () => new Array(131072).fill(1.5));
        limitHeapGrowth(${percent});
        gc();`;
      const output = execFileSync(
        process.execPath,
        ['--expose-gc', '--trace-gc-verbose', '--input-type=module', '-e', script],
        { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      );
      const [, size, limit] = [...output.matchAll(LIMIT_LINE)].at(-1) ?? [];
      return Number(limit) / Number(size);
    };
    const difference = ratioAfterGc(300) - ratioAfterGc(30);
    expect(difference).toBeGreaterThan(2.5);
    expect(difference).toBeLessThan(2.9);
  });
});
