import { afterEach, describe, expect, it } from 'vitest';
import { configEnv, type SpawnedGateway, spawnGateway } from '../../src/test-support/spawn-gateway.js';

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
