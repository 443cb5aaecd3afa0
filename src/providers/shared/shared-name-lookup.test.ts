import type { LookupAddress, LookupOptions } from 'node:dns';
import { describe, expect, it } from 'vitest';
import { useHoldingServer } from '../../test-support/holding-server.js';
import { waitFor } from '../../test-support/raw-connection.js';
import { type NameLookup, sharedNameLookup } from './shared-name-lookup.js';
import { createUpstreamDispatcher } from './upstream-client.js';

type Answer = { error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number };

/** A resolver answered by hand: every call is recorded, and answered when the test says so. */
function manualResolver() {
  const calls: { hostname: string; options: LookupOptions; answer: (answer: Answer) => void }[] = [];
  const lookup: NameLookup = (hostname, options, callback) => {
    calls.push({
      hostname,
      options,
      answer: ({ error, address, family }) => callback(error, address, family),
    });
  };
  return { calls, lookup };
}

/** Calls `lookup` and resolves with what it calls back. */
function ask(lookup: NameLookup, hostname: string, options: LookupOptions = {}): Promise<Answer> {
  return new Promise((resolve) =>
    lookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
  );
}

describe('sharedNameLookup', () => {
  it('makes one lookup for every caller that needs the same name while it runs', async () => {
    const resolver = manualResolver();
    const lookup = sharedNameLookup(resolver.lookup);
    const answers = Array.from({ length: 50 }, () => ask(lookup, 'api.provider.test', { all: true }));
    expect(resolver.calls).toHaveLength(1);
    const addresses = [
      { address: '192.0.2.7', family: 4 },
      { address: '2001:db8::7', family: 6 },
    ];
    resolver.calls[0]?.answer({ error: null, address: addresses });
    const got = await Promise.all(answers);
    expect(got.every((answer) => answer.error === null)).toBe(true);
    expect(got.map((answer) => answer.address)).toEqual(Array(50).fill(addresses));
    // Each caller has a list of its own: one that changes it changes nobody else's.
    expect(got[0]?.address).not.toBe(got[1]?.address);
  });

  it('looks up different names, and the same name with different options, apart', async () => {
    const resolver = manualResolver();
    const lookup = sharedNameLookup(resolver.lookup);
    const one = ask(lookup, 'a.provider.test', { all: true });
    const two = ask(lookup, 'b.provider.test', { all: true });
    const three = ask(lookup, 'a.provider.test', { family: 4 });
    expect(resolver.calls.map((call) => [call.hostname, call.options])).toEqual([
      ['a.provider.test', { all: true }],
      ['b.provider.test', { all: true }],
      ['a.provider.test', { family: 4 }],
    ]);
    resolver.calls[0]?.answer({ error: null, address: [{ address: '192.0.2.1', family: 4 }] });
    resolver.calls[1]?.answer({ error: null, address: [{ address: '192.0.2.2', family: 4 }] });
    resolver.calls[2]?.answer({ error: null, address: '192.0.2.3', family: 4 });
    expect((await one).address).toEqual([{ address: '192.0.2.1', family: 4 }]);
    expect((await two).address).toEqual([{ address: '192.0.2.2', family: 4 }]);
    expect(await three).toEqual({ error: null, address: '192.0.2.3', family: 4 });
  });

  it('reuses an answer for reuseMs, then looks the name up again', async () => {
    const resolver = manualResolver();
    let clock = 1_000;
    const lookup = sharedNameLookup(resolver.lookup, 5_000, () => clock);
    const first = ask(lookup, 'api.provider.test', { family: 4 });
    resolver.calls[0]?.answer({ error: null, address: '192.0.2.7', family: 4 });
    expect(await first).toEqual({ error: null, address: '192.0.2.7', family: 4 });
    clock += 4_999;
    expect(await ask(lookup, 'api.provider.test', { family: 4 })).toEqual({
      error: null,
      address: '192.0.2.7',
      family: 4,
    });
    expect(resolver.calls).toHaveLength(1);
    clock += 1;
    const later = ask(lookup, 'api.provider.test', { family: 4 });
    expect(resolver.calls).toHaveLength(2);
    resolver.calls[1]?.answer({ error: null, address: '192.0.2.8', family: 4 });
    expect((await later).address).toBe('192.0.2.8');
  });

  it('passes a failure to every caller that waited for it and keeps none', async () => {
    const resolver = manualResolver();
    const lookup = sharedNameLookup(resolver.lookup);
    const waiting = [ask(lookup, 'gone.provider.test'), ask(lookup, 'gone.provider.test')];
    const failure = Object.assign(new Error('getaddrinfo ENOTFOUND gone.provider.test'), {
      code: 'ENOTFOUND',
    });
    resolver.calls[0]?.answer({ error: failure, address: '' });
    for (const answer of await Promise.all(waiting)) expect(answer.error).toBe(failure);
    // The next connection asks the resolver again.
    const again = ask(lookup, 'gone.provider.test');
    expect(resolver.calls).toHaveLength(2);
    resolver.calls[1]?.answer({ error: null, address: '192.0.2.9', family: 4 });
    expect((await again).address).toBe('192.0.2.9');
  });

  it('does not keep a lookup that threw as running: the next caller asks again', async () => {
    const resolver = manualResolver();
    let throws = true;
    const lookup = sharedNameLookup((hostname, options, callback) => {
      if (throws) throw new TypeError('The "options.hints" argument is invalid');
      resolver.lookup(hostname, options, callback);
    });
    expect(() => lookup('api.provider.test', {}, () => undefined)).toThrow(TypeError);
    throws = false;
    const next = ask(lookup, 'api.provider.test');
    expect(resolver.calls).toHaveLength(1);
    resolver.calls[0]?.answer({ error: null, address: '192.0.2.7', family: 4 });
    expect((await next).address).toBe('192.0.2.7');
  });
});

describe('the upstream dispatcher and host names', () => {
  /** A server that holds every request until the test ends it. */
  const server = useHoldingServer();
  const { held } = server;

  /** A resolver that knows one name, the test server's, and counts its lookups. */
  function countingResolver() {
    const counted = { lookups: 0 };
    const lookup: NameLookup = (hostname, options, callback) => {
      counted.lookups += 1;
      // Answered on a later turn, as a resolver on the thread pool answers.
      setImmediate(() => {
        if (hostname !== 'provider.test') {
          callback(Object.assign(new Error(`no ${hostname}`), { code: 'ENOTFOUND' }), '');
          return;
        }
        if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
        else callback(null, '127.0.0.1', 4);
      });
    };
    return { counted, lookup };
  }

  /** Opens `count` connections at once to the test server by name; resolves once all are held there. */
  async function burst(lookup: NameLookup, count: number): Promise<void> {
    const dispatcher = createUpstreamDispatcher(1_000, lookup);
    const port = new URL(server.origin).port;
    const origin = `http://provider.test:${port}`;
    const answers = Array.from({ length: count }, () =>
      dispatcher
        .request({ origin, path: '/v1/chat/completions', method: 'POST', body: '{}' })
        .then(async (answer) => {
          await answer.body.text();
          return answer.statusCode;
        }),
    );
    try {
      const arrived = await waitFor(() => held.length === count, 10_000);
      expect(arrived, `${held.length} of ${count} requests arrived`).toBe(true);
      for (const res of held.splice(0)) res.end();
      expect(await Promise.all(answers)).toEqual(Array(count).fill(200));
    } finally {
      for (const res of held.splice(0)) res.end();
      await dispatcher.close();
    }
  }

  it('resolves a provider host once for a burst of new connections to it', async () => {
    const resolver = countingResolver();
    await burst(sharedNameLookup(resolver.lookup), 40);
    expect(resolver.counted.lookups).toBe(1);
  });

  it('(without sharing, each of those connections would have looked the name up)', async () => {
    const resolver = countingResolver();
    await burst(resolver.lookup, 40);
    expect(resolver.counted.lookups).toBe(40);
  });
});
