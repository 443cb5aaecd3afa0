import type { Agent, Dispatcher, Pool } from 'undici';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config.js';
import { upstreamPoolFigures } from '../providers/shared/upstream-client.js';
import { useHoldingServer } from '../test-support/holding-server.js';
import { waitFor } from '../test-support/raw-connection.js';
import { testConfig } from '../test-support/start-test-gateway.js';
import { openUpstreams } from './open-upstreams.js';

/** A server that holds every request (its answers wait in `held`). */
const server = useHoldingServer();
const { held } = server;

async function until(condition: () => boolean, what: () => string): Promise<void> {
  if (!(await waitFor(condition, 10_000))) throw new Error(`timed out waiting for ${what()}`);
}

/**
 * Opens the gateway's upstreams with this `server` config section and sends three requests through their
 * dispatcher to the holding server; `check` watches them, then everything is released and closed.
 */
async function threeRequests(
  serverConfig: Record<string, unknown>,
  check: (dispatcher: Dispatcher) => Promise<void>,
): Promise<void> {
  const config = parseConfig(testConfig(`${server.origin}/v1`, { server: serverConfig }), 'test');
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
  try {
    await check(dispatcher);
    for (const res of held.splice(0)) res.end();
    expect(await Promise.all(answers)).toEqual([200, 200, 200]);
  } finally {
    for (const res of held.splice(0)) res.end();
    discovery.stop();
    await dispatcher.close();
  }
}

/** Two of three requests at the upstream, the third waiting in the pool for a connection until one ends. */
async function twoAtATime(dispatcher: Dispatcher): Promise<void> {
  // The Agent keeps a pool per origin (a client only when `connections` is 1).
  const stats = () => (dispatcher as Agent).stats[server.origin] as Pool['stats'] | undefined;
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
}

describe('the upstream dispatcher', () => {
  it('opens at most server.maxUpstreamConnections connections to one provider origin', async () => {
    await threeRequests({ maxUpstreamConnections: 2 }, twoAtATime);
  });

  it('opens as many connections to one origin as the gateway accepts clients, by default', async () => {
    await threeRequests({ maxConnections: 2 }, twoAtATime);
  });

  it('reports one connection and the requests waiting for it when only one is allowed', async () => {
    await threeRequests({ maxUpstreamConnections: 1 }, async (dispatcher) => {
      const figures = () => upstreamPoolFigures(dispatcher)[server.origin];
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
    });
  });
});
