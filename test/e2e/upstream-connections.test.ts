import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAIStreamText } from '../../src/providers/openai/__fixtures__/chunk-text.js';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/listen-loopback.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * Model streams last seconds to minutes, so a gateway in front of one provider holds as many upstream
 * requests open as it has streams in flight. None may wait for a connection to that provider while the
 * gateway still accepts clients: by default the gateway opens as many connections to one provider origin as
 * it accepts client connections (`server.maxConnections`).
 */
const STREAMS = 300;

/** An OpenAI-protocol upstream that holds every streamed chat request until `releaseAll`. */
async function startHoldingUpstream() {
  const held: ServerResponse[] = [];
  let arrived = 0;
  let open = 0;
  let mostOpen = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      arrived += 1;
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      res.on('close', () => {
        open -= 1;
      });
      held.push(res);
    });
  });
  const listening: LoopbackServer = await listenLoopback(server);
  return {
    url: `${listening.origin}/v1`,
    arrived: () => arrived,
    mostOpen: () => mostOpen,
    releaseAll() {
      for (const res of held.splice(0)) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(openAIStreamText([' held', ' and', ' released']));
      }
    },
    close: listening.close,
  };
}

async function until(condition: () => boolean, timeoutMs: number, what: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('upstream connections', () => {
  let upstream: Awaited<ReturnType<typeof startHoldingUpstream>>;
  let env: TestGateway;
  beforeAll(async () => {
    upstream = await startHoldingUpstream();
    env = await startTestGateway((fakeUrl) => {
      const config = testConfig(fakeUrl);
      const [provider] = config.providers;
      // The held requests wait far longer than the test config's time to first byte allows.
      return { ...config, providers: [{ ...provider, baseUrl: upstream.url, timeoutMs: 60_000 }] };
    });
  });
  afterAll(async () => {
    upstream.releaseAll();
    await env?.stop();
    await upstream?.close();
  });

  it(`sends ${STREAMS} streams to one provider at once, none waiting for another to end`, async () => {
    const client = new OpenAI({ baseURL: env.baseURL, apiKey: TEST_KEY, maxRetries: 0 });
    const streams = Array.from({ length: STREAMS }, async () => {
      const stream = await client.chat.completions.create({
        model: 'acme/chat-large',
        stream: true,
        messages: [{ role: 'user', content: 'hold on' }],
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      return text;
    });
    // Settled as they end, so that streams cut by a failing wait below are not unhandled rejections.
    const settled = Promise.allSettled(streams);
    await until(
      () => upstream.arrived() === STREAMS,
      20_000,
      () => `all ${STREAMS} requests at the upstream (${upstream.arrived()} arrived)`,
    );
    expect(upstream.mostOpen()).toBe(STREAMS);
    // The operator sees them: one connection each to the provider's origin, none waiting for one.
    const metrics = await (await fetch(`${env.gateway.url}/metrics`)).text();
    const origin = new URL(upstream.url).origin;
    expect(metrics).toContain(`gateway_upstream_connections{origin="${origin}"} ${STREAMS}`);
    expect(metrics).toContain(`gateway_upstream_requests_waiting{origin="${origin}"} 0`);
    upstream.releaseAll();
    const texts = (await settled).map((result) =>
      result.status === 'fulfilled' ? result.value : String(result.reason),
    );
    expect(new Set(texts)).toEqual(new Set([' held and released']));
  }, 60_000);
});
