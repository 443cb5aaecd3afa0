import type { ServerResponse } from 'node:http';
import type { Agent, Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config.js';
import { upstreamPoolFigures } from '../providers/shared/upstream-client.js';
import { type HoldingServer, listenHolding } from '../test-support/holding-server.js';
import { testConfig } from '../test-support/start-test-gateway.js';
import { openUpstreams } from './open-upstreams.js';

/** A server that holds every request (its answers wait in `held`). */
let server: HoldingServer;
let held: ServerResponse[];
beforeAll(async () => {
  server = await listenHolding();
  held = server.held;
});
afterAll(() => server.close());

async function until(condition: () => boolean, what: () => string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Three requests through the dispatcher the gateway opens with `server`: how many reach the upstream at once. */
async function threeRequests(serverConfig: Record<string, unknown>) {
  const config = parseConfig(testConfig(`${server.origin}/v1`, { server: serverConfig }), 'test');
  const { dispatcher, discovery } = await openUpstreams(
    { config, databaseUrl: 'sqlite::memory:', port: 0, host: '127.0.0.1', vars: {} },
    () => undefined,
  );
  const agent = dispatcher as Agent;
  // The Agent keeps a pool per origin (a client only when `connections` is 1).
  const stats = () => agent.stats[server.origin] as Pool['stats'] | undefined;
  const answers = Array.from({ length: 3 }, () =>
    dispatcher
      .request({ origin: server.origin, path: '/v1/chat/completions', method: 'POST', body: '{}' })
      .then(async (answer) => {
        await answer.body.text();
        return answer.statusCode;
      }),
  );
  try {
    // Two at the upstream, the third waiting in the pool for a connection.
    await until(
      () => held.length === 2 && stats()?.queued === 1,
      () => `two held and one queued (held ${held.length}, ${JSON.stringify(stats())})`,
    );
    expect(stats()).toMatchObject({ connected: 2, running: 2, queued: 1 });
    // What `GET /metrics` reports of it.
    expect(upstreamPoolFigures(dispatcher)).toEqual({ [server.origin]: { connections: 2, waiting: 1 } });
    held.shift()?.end();
    await until(
      () => held.length === 2 && stats()?.queued === 0,
      () => `the third at the upstream once one ended (held ${held.length}, ${JSON.stringify(stats())})`,
    );
    for (const res of held.splice(0)) res.end();
    expect(await Promise.all(answers)).toEqual([200, 200, 200]);
  } finally {
    for (const res of held.splice(0)) res.end();
    discovery.stop();
    await dispatcher.close();
  }
}

describe('the upstream dispatcher', () => {
  it('opens at most server.maxUpstreamConnections connections to one provider origin', async () => {
    await threeRequests({ maxUpstreamConnections: 2 });
  });

  it('opens as many connections to one origin as the gateway accepts clients, by default', async () => {
    await threeRequests({ maxConnections: 2 });
  });

  it('reports one connection and the requests waiting for it when only one is allowed', async () => {
    const config = parseConfig(
      testConfig(`${server.origin}/v1`, { server: { maxUpstreamConnections: 1 } }),
      'test',
    );
    const { dispatcher, discovery } = await openUpstreams(
      { config, databaseUrl: 'sqlite::memory:', port: 0, host: '127.0.0.1', vars: {} },
      () => undefined,
    );
    const answers = Array.from({ length: 3 }, () =>
      dispatcher
        .request({ origin: server.origin, path: '/v1/chat/completions', method: 'POST', body: '{}' })
        .then(async (answer) => {
          await answer.body.text();
          return answer.statusCode;
        }),
    );
    const figures = () => upstreamPoolFigures(dispatcher)[server.origin];
    try {
      // undici keeps a single client (not a pool) for an origin allowed one connection.
      await until(
        () => held.length === 1 && figures()?.waiting === 2,
        () => `one held and two waiting (held ${held.length}, ${JSON.stringify(figures())})`,
      );
      expect(figures()).toEqual({ connections: 1, waiting: 2 });
      while (held.length > 0 || figures()?.waiting) {
        held.shift()?.end();
        await until(
          () => held.length > 0 || figures()?.waiting === 0,
          () => `the next request at the upstream (${JSON.stringify(figures())})`,
        );
      }
      expect(await Promise.all(answers)).toEqual([200, 200, 200]);
    } finally {
      for (const res of held.splice(0)) res.end();
      discovery.stop();
      await dispatcher.close();
    }
  });
});
