import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import {
  configEnv,
  type SpawnedGateway,
  spawnGateway,
  startNodeOptions,
} from '../../src/test-support/spawn-gateway.js';

const MIB = 1024 * 1024;
const KEY = 'sk-gw-young-generation-0123456789abcdef';

/** V8's young generation ("new" space) as `GET /metrics` reports it, committed bytes. */
async function newSpaceBytes(url: string): Promise<number> {
  const text = await (await fetch(`${url.replace(/\/v1$/, '')}/metrics`)).text();
  const match = /^nodejs_heap_space_size_total_bytes\{space="new"\} (\d+)/m.exec(text);
  if (!match) throw new Error('no new-space size in /metrics');
  return Number(match[1]);
}

/**
 * The gateway holds V8's young generation at its initial size while it loads (loading would double it to
 * its maximum, 16 MB per semi-space, which a gateway at rest keeps), and lets it grow once it listens.
 */
describe('young generation at start-up', () => {
  let gateway: SpawnedGateway | undefined;
  afterEach(() => {
    gateway?.child.kill('SIGKILL');
    gateway = undefined;
  });

  it('is small once the gateway listens and grows again under load', async () => {
    gateway = await spawnGateway(configEnv({ organizations: [{ id: 'o', apiKeys: [KEY] }] }));
    const atRest = await newSpaceBytes(gateway.url);
    // Without the hold, loading leaves 32 MB (two 16 MB semi-spaces).
    expect(atRest).toBeLessThanOrEqual(8 * MIB);
    // Requests that keep something alive across scavenges (32 in flight, each with a 256 KB body parsed,
    // then refused for its unknown model) make V8 grow it, as it would without the hold.
    const body = JSON.stringify({ model: 'no/such-model', input: 'x'.repeat(256 * 1024) });
    const send = async () => {
      const response = await fetch(`${gateway?.url}/embeddings`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
    };
    let size = atRest;
    for (let round = 0; round < 200 && size <= atRest; round++) {
      await Promise.all(Array.from({ length: 32 }, send));
      size = await newSpaceBytes(gateway.url);
    }
    expect(size).toBeGreaterThan(atRest);
  });
});

/**
 * Allocates as a busy gateway does (many objects alive across scavenges, the rest short-lived) until V8 has
 * grown its young generation as far as it will, then prints the young generation's committed bytes.
 */
const GROW_YOUNG_GENERATION = `
const v8 = require('node:v8');
let alive = [];
for (let i = 0; i < 3e6; i++) {
  alive.push({ i, text: 'x' + i });
  if (alive.length > 200000) alive = [];
}
const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
console.log(young.space_size);
`;

function grownYoungGeneration(nodeOptions: string[]): number {
  return Number(
    execFileSync(process.execPath, [...nodeOptions, '-e', GROW_YOUNG_GENERATION], { encoding: 'utf8' }),
  );
}

describe("npm start's Node options", () => {
  let gateway: SpawnedGateway | undefined;
  afterEach(() => {
    gateway?.child.kill('SIGKILL');
    gateway = undefined;
  });

  it('keep the young generation within two 16 MB semi-spaces on every Node (V8 13 would grow it to 64 MB each)', () => {
    // Without them the probe reaches the runtime's own maximum: 32 MiB on Node 20 and 22, 128 MiB on Node 24.
    expect(grownYoungGeneration([])).toBeGreaterThanOrEqual(32 * MIB);
    expect(grownYoungGeneration(startNodeOptions())).toBeLessThanOrEqual(32 * MIB);
  });

  it('are what a gateway on V8 13 or later asks for at start when it runs without them', async () => {
    const v8Major = Number.parseInt(process.versions.v8, 10);
    const env = configEnv({ organizations: [{ id: 'o', apiKeys: [KEY] }] });
    gateway = await spawnGateway(env, 20_000, []);
    const bare = gateway.output();
    gateway.child.kill('SIGKILL');
    // The second start uses the same database and journal: the first is gone before it opens them.
    await gateway.exited;
    gateway = await spawnGateway(env);
    const started = gateway.output();
    expect(bare).toContain('listening on');
    expect(started).toContain('listening on');
    if (v8Major >= 13) expect(bare).toContain('--max-semi-space-size=16, as npm start does');
    else expect(bare).not.toContain('--max-semi-space-size');
    expect(started).not.toContain('--max-semi-space-size');
  });
});
