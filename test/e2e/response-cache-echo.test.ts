import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/listen-loopback.js';
import { startTestGateway, type TestGateway, testConfig } from '../../src/test-support/start-test-gateway.js';

/**
 * A Response echoes members of its request that the cache key leaves out (`user`, `metadata`,
 * `safety_identifier`): a cache hit answers with the current request's, never with those of the key or end
 * user whose request filled the cache.
 */
const KEY_A = 'sk-gw-test-cache-echo-a-0123456789abcdef';
const KEY_B = 'sk-gw-test-cache-echo-b-0123456789abcdef';
let upstream: LoopbackServer;
let env: TestGateway;
beforeAll(async () => {
  // Like OpenAI, the upstream echoes the request's metadata, user and safety identifier.
  upstream = await listenLoopback(
    createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      req.on('end', () => {
        const body = JSON.parse(text) as Record<string, unknown>;
        const message = { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed' };
        const output = [{ ...message, content: [{ type: 'output_text', text: '4', annotations: [] }] }];
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            id: 'resp_1',
            object: 'response',
            created_at: 1,
            status: 'completed',
            model: body.model,
            output,
            metadata: body.metadata ?? {},
            user: body.user ?? null,
            safety_identifier: body.safety_identifier ?? null,
            usage: { input_tokens: 5, output_tokens: 1, total_tokens: 6 },
          }),
        );
      });
    }),
  );
  env = await startTestGateway(() => ({
    ...testConfig(`${upstream.origin}/v1`),
    organizations: [{ id: 'acme', apiKeys: [KEY_A, KEY_B], cache: { ttlSeconds: 300 } }],
  }));
});
afterAll(async () => {
  await env.stop();
  await upstream.close();
});

const ask = async (key: string, body: Record<string, unknown>) => {
  const response = await fetch(`${env.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'acme/chat-large', input: 'what is 2+2', ...body }),
  });
  return { cache: response.headers.get('x-gateway-cache'), text: await response.text() };
};

describe("a cached Response answers with the current request's echoed members", () => {
  it("another key and end user never get the first one's user, safety identifier or metadata", async () => {
    const alice = {
      user: 'alice@customer.example',
      safety_identifier: 'alice-77',
      metadata: { id: 'cust_alice' },
    };
    expect((await ask(KEY_A, alice)).cache).not.toBe('hit');
    const bob = await ask(KEY_B, { user: 'bob@customer.example', metadata: { id: 'cust_bob' } });
    const carol = await ask(KEY_B, { stream: true, user: 'carol' });
    expect([bob.cache, carol.cache]).toEqual(['hit', 'hit']);
    for (const text of [bob.text, carol.text]) {
      for (const secret of ['alice@customer.example', 'alice-77', 'cust_alice'])
        expect(text).not.toContain(secret);
    }
    expect(JSON.parse(bob.text)).toMatchObject({
      user: 'bob@customer.example',
      metadata: { id: 'cust_bob' },
    });
    expect(carol.text).toContain('"user":"carol"');
  });
});
