import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Firehose, startFirehoseUpstream } from '../../src/test-support/firehose-upstream.js';
import { configEnv, type SpawnedGateway, spawnGateway } from '../../src/test-support/spawn-gateway.js';
import { TEST_KEY, testConfig } from '../../src/test-support/start-test-gateway.js';

/**
 * Clients that never read a fast, endless stream: the gateway stops reading the upstream for them (bounded
 * memory), keeps serving everyone else, and ends their streams after `server.stalledClientTimeoutMs`,
 * cancelling the upstream. The gateway runs as its own process, so its memory is measured alone.
 */
const CLIENTS = 20;
const STALLED_MS = 5_000;

let upstream: Firehose;
let gateway: SpawnedGateway;
beforeAll(async () => {
  upstream = await startFirehoseUpstream();
  const config = { ...testConfig(upstream.url), server: { stalledClientTimeoutMs: STALLED_MS } };
  gateway = await spawnGateway(configEnv(config));
});
afterAll(async () => {
  gateway.child.kill('SIGKILL');
  await upstream.close();
});

/** Opens a streamed chat request and never reads its body past the headers. */
function openNeverReading(baseURL: string): Promise<IncomingMessage> {
  const url = new URL(`${baseURL}/chat/completions`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      },
      (res) => {
        res.pause();
        resolve(res);
      },
    );
    req.on('error', reject);
    req.end(
      JSON.stringify({ model: 'acme/chat-large', stream: true, messages: [{ role: 'user', content: 'go' }] }),
    );
  });
}

/** The largest TCP buffer the kernel grants (the third figure of net.ipv4.tcp_rmem / tcp_wmem). */
function maxBuffer(name: 'tcp_rmem' | 'tcp_wmem'): number {
  return Number(readFileSync(`/proc/sys/net/ipv4/${name}`, 'utf8').trim().split(/\s+/)[2]);
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('streams honour backpressure end to end', () => {
  it('never-reading clients cost bounded memory, others are served, stalled streams are ended', async () => {
    const baseline = gateway.rss();
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => openNeverReading(gateway.url)));
    // Every upstream stream waits for the gateway (or was already ended as stalled).
    const settledDown = () => upstream.blocked() + upstream.closedByClient() === CLIENTS;
    await until(settledDown, 30_000, 'every upstream stream to wait for the gateway');

    // Everyone else is served meanwhile.
    const response = await fetch(`${gateway.url}/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'acme/embed-small', input: 'hello' }),
    });
    expect(response.status).toBe(200);

    // Without backpressure the gateway held everything the upstream sent (gigabytes within seconds). With it,
    // growth is what passed before the buffers filled (garbage V8 has not returned yet) plus the tokenizer,
    // loaded once for billing streams cut short (~35 MB). bench/never-reading.mjs measures 200 clients.
    expect(gateway.rss() - baseline).toBeLessThan(160 * 1024 * 1024);

    // After the stall limit the streams are ended and the upstream requests cancelled. The limit counts from
    // the last byte the client's side took: its kernel keeps taking data for a while as its buffers grow.
    await until(() => upstream.open() === 0, 40_000, 'stalled streams to be cancelled upstream');
    expect(upstream.closedByClient()).toBe(CLIENTS);
    // What the upstream could send per stream is what the kernel's socket buffers hold (client ↔ gateway and
    // gateway ↔ upstream, each side) plus the gateway's bounded buffer: it stopped reading for its client.
    const perStream = upstream.bytesSent() / CLIENTS;
    expect(perStream).toBeLessThan(2 * (maxBuffer('tcp_rmem') + maxBuffer('tcp_wmem')) + 1024 * 1024);
    for (const client of clients) client.destroy();
  }, 90_000);
});
