import { describe, expect, it } from 'vitest';
import { compilePricing } from '../accounting/compile-pricing.js';
import type { ResolvedEndpoint, ResolvedModel } from '../catalog/catalog.js';
import { GatewayError } from '../errors/gateway-error.js';
import { type PlanInput, type ProviderHealth, planAttempts } from './plan-attempts.js';

const providers = { a: false, b: true, c: true, d: false } as const;
type Id = keyof typeof providers;

function endpoint(id: Id): ResolvedEndpoint {
  return {
    provider: id,
    modelId: 'acme/m',
    model: `m-${id}`,
    pricing: {},
    compiledPricing: compilePricing({}),
    maxOutputTokens: undefined,
    providerConfig: {
      id,
      api: 'openai',
      baseUrl: 'http://x/v1',
      zdr: providers[id],
      supportsSet: new Set(['chat']),
    },
  };
}

const model: ResolvedModel = {
  id: 'acme/m',
  name: 'm',
  created: 0,
  capabilities: [],
  api_compatibility: ['chat-completion'],
  endpoints: [],
  activeEndpoints: (['a', 'b', 'c', 'd'] as const).map(endpoint),
};

const healthy: ProviderHealth = { uptime: 1, latencyP50Ms: undefined, coolingDown: false };

function plan(
  options: Partial<PlanInput> & { healthOf?: Partial<Record<Id, Partial<ProviderHealth>>> } = {},
) {
  const { healthOf = {}, ...rest } = options;
  return planAttempts({
    model,
    kind: 'chat',
    knownProviders: new Set(['a', 'b', 'c', 'd', 'e']),
    canServe: () => true,
    health: (_model, id) => ({ ...healthy, ...healthOf[id as Id] }),
    ...rest,
  }).map((e) => e.provider);
}

function failure(options: Parameters<typeof plan>[0]): GatewayError {
  try {
    plan(options);
  } catch (error) {
    if (error instanceof GatewayError) return error;
  }
  throw new Error('expected a planning error');
}

describe('planAttempts', () => {
  it.each([
    ['no rules: catalog order', {}, ['a', 'b', 'c', 'd']],
    ['order puts its providers first, in its order', { order: ['c', 'a'] }, ['c', 'a', 'b', 'd']],
    ['order naming a provider the model lacks is ignored', { order: ['e', 'd'] }, ['d', 'a', 'b', 'c']],
    ['only bounds', { only: ['d', 'b'] }, ['b', 'd']],
    ['only bounds and order ranks', { only: ['b', 'c', 'd'], order: ['d'] }, ['d', 'b', 'c']],
    ['order outside only is not tried', { only: ['b'], order: ['a'] }, ['b']],
    ['zdr keeps zdr providers only', { zdr: true }, ['b', 'c']],
    ['zdr filters order', { zdr: true, order: ['a', 'c'] }, ['c', 'b']],
    ['zdr with only', { zdr: true, only: ['a', 'c'] }, ['c']],
    ['zdr false changes nothing', { zdr: false }, ['a', 'b', 'c', 'd']],
    ['health: lower uptime goes later', { healthOf: { a: { uptime: 0.5 } } }, ['b', 'c', 'd', 'a']],
    [
      'health: uptime within a point is a tie, latency decides',
      {
        healthOf: {
          a: { uptime: 0.996, latencyP50Ms: 900 },
          b: { latencyP50Ms: 100 },
          c: { latencyP50Ms: 300 },
          d: { latencyP50Ms: 200 },
        },
      },
      ['b', 'd', 'c', 'a'],
    ],
    [
      'health: an unmeasured provider counts as fast (it gets measured)',
      { healthOf: { c: { latencyP50Ms: 50 }, d: { latencyP50Ms: 20 } } },
      ['a', 'b', 'd', 'c'],
    ],
    ['cooling down goes last', { healthOf: { a: { coolingDown: true } } }, ['b', 'c', 'd', 'a']],
    [
      'cooling down goes last even when ordered first',
      { order: ['a', 'b'], healthOf: { a: { coolingDown: true } } },
      ['b', 'c', 'd', 'a'],
    ],
    ['order beats health', { order: ['a'], healthOf: { a: { uptime: 0.2 } } }, ['a', 'b', 'c', 'd']],
    ['only with health', { only: ['a', 'b'], healthOf: { a: { uptime: 0.9 } } }, ['b', 'a']],
    ['zdr with cooling', { zdr: true, healthOf: { b: { coolingDown: true } } }, ['c', 'b']],
  ] as const)('%s', (_name, options, expected) => {
    expect(plan(options as Parameters<typeof plan>[0])).toEqual(expected);
  });

  it.each([
    ['only names a provider that does not exist', { only: ['zzz'] }, 'gateway.only'],
    ['only leaves nothing for this model', { only: ['e'] }, 'gateway.only'],
    ['zdr leaves nothing', { zdr: true, only: ['a', 'd'] }, 'gateway.only'],
  ] as const)('rejects when %s', (_name, options, param) => {
    const error = failure(options as Parameters<typeof plan>[0]);
    expect(error.code).toBe('INVALID_GATEWAY_SETTINGS');
    expect(error.param).toBe(param);
  });

  it('zdr alone leaving nothing names gateway.zdr', () => {
    const error = failure({
      zdr: true,
      model: { ...model, activeEndpoints: [endpoint('a'), endpoint('d')] },
    });
    expect(error.code).toBe('INVALID_GATEWAY_SETTINGS');
    expect(error.param).toBe('gateway.zdr');
  });

  it('a model no provider can serve for the endpoint is MODEL_NOT_FOUND', () => {
    expect(failure({ canServe: () => false }).code).toBe('MODEL_NOT_FOUND');
  });
});

describe('planAttempts: ignore, allow_fallbacks, sort', () => {
  it.each([
    ['ignore removes providers', { ignore: ['a', 'c'] }, ['b', 'd']],
    ['ignore with order', { ignore: ['a'], order: ['d'] }, ['d', 'b', 'c']],
    ['ignore with zdr', { ignore: ['b'], zdr: true }, ['c']],
    [
      'allowFallbacks false keeps only the ordered providers',
      { order: ['c', 'a'], allowFallbacks: false },
      ['c', 'a'],
    ],
    ['allowFallbacks false without order keeps the first planned', { allowFallbacks: false }, ['a']],
    // A provider named twice in `order` is one provider: it was planned (and tried) twice.
    ['a repeated order entry is planned once', { order: ['c', 'a', 'c'] }, ['c', 'a', 'b', 'd']],
    [
      'a repeated order entry is planned once without fallbacks',
      { order: ['c', 'c'], allowFallbacks: false },
      ['c'],
    ],
    [
      'allowFallbacks false without order keeps the healthiest',
      { allowFallbacks: false, healthOf: { a: { uptime: 0.5 } } },
      ['b'],
    ],
    [
      'allowFallbacks false with an order the model lacks keeps the first planned',
      { order: ['e'], allowFallbacks: false },
      ['a'],
    ],
    ['allowFallbacks true changes nothing', { allowFallbacks: true }, ['a', 'b', 'c', 'd']],
    [
      'sort latency: fastest first, unmeasured last',
      { sort: 'latency', healthOf: { a: { latencyP50Ms: 300 }, c: { latencyP50Ms: 100 } } },
      ['c', 'a', 'b', 'd'],
    ],
    [
      'sort throughput: most tokens per second first, unmeasured last',
      { sort: 'throughput', healthOf: { b: { throughputP50: 10 }, d: { throughputP50: 90 } } },
      ['d', 'b', 'a', 'c'],
    ],
    [
      'sort keeps order first',
      { sort: 'latency', order: ['b'], healthOf: { a: { latencyP50Ms: 300 }, c: { latencyP50Ms: 100 } } },
      ['b', 'c', 'a', 'd'],
    ],
    [
      'sort leaves cooling providers last',
      { sort: 'latency', healthOf: { c: { latencyP50Ms: 1, coolingDown: true }, a: { latencyP50Ms: 5 } } },
      ['a', 'b', 'd', 'c'],
    ],
  ] as const)('%s', (_name, options, expected) => {
    expect(plan(options as Parameters<typeof plan>[0])).toEqual(expected);
  });

  it('sort price: cheapest (input plus output) first, ties in health order', () => {
    const priced = (id: Id, input: string, output: string): ResolvedEndpoint => ({
      ...endpoint(id),
      pricing: { input, output },
      compiledPricing: compilePricing({ input, output }),
    });
    const endpoints = [
      priced('a', '0.000003', '0.000010'),
      priced('b', '0.000001', '0.000002'),
      priced('c', '0.000002', '0.000001'),
      priced('d', '0.000005', '0.000000'),
    ];
    expect(plan({ sort: 'price', model: { ...model, activeEndpoints: endpoints } })).toEqual([
      'b',
      'c',
      'd',
      'a',
    ]);
  });

  it.each([
    ['ignore names a provider that does not exist', { ignore: ['zzz'] }, 'gateway.ignore'],
    ['ignore leaves nothing', { ignore: ['a', 'b', 'c', 'd'] }, 'gateway.ignore'],
    [
      'a provider member named by the request',
      { only: ['zzz'], names: { only: 'provider.only' } },
      'provider.only',
    ],
    [
      'zdr named by the provider object',
      { zdr: true, only: ['a'], names: { only: 'provider.only' } },
      'provider.only',
    ],
  ] as const)('rejects when %s', (_name, options, param) => {
    const error = failure(options as Parameters<typeof plan>[0]);
    expect(error.code).toBe('INVALID_GATEWAY_SETTINGS');
    expect(error.param).toBe(param);
    expect(error.message).toContain(param);
  });
});

/** A deterministic source in [0, 1): a linear congruential generator from a seed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('planAttempts: spreading by weight', () => {
  const weighted = (weights: Partial<Record<Id, number>>): ResolvedModel => ({
    ...model,
    activeEndpoints: (['a', 'b', 'c', 'd'] as const).map((id) => ({ ...endpoint(id), weight: weights[id] })),
  });

  function firsts(
    weights: Partial<Record<Id, number>>,
    options: Parameters<typeof plan>[0] = {},
    draws = 10_000,
  ) {
    const random = seeded(42);
    const counts: Record<string, number> = {};
    for (let i = 0; i < draws; i++) {
      const first = plan({ ...options, model: weighted(weights), random })[0] ?? '';
      counts[first] = (counts[first] ?? 0) + 1;
    }
    return counts;
  }

  it('without weights the catalog order stands (no randomness)', () => {
    expect(plan({ random: () => 0.99 })).toEqual(['a', 'b', 'c', 'd']);
  });

  it('draws the first provider in proportion to the weights (missing weights count 1)', () => {
    const counts = firsts({ a: 6, b: 3, c: 0 });
    // Expected shares 6/10, 3/10, 0, 1/10 of 10 000 draws; a seeded source gives the same counts every run.
    expect(counts.c).toBeUndefined();
    expect(Math.abs((counts.a ?? 0) - 6_000)).toBeLessThan(300);
    expect(Math.abs((counts.b ?? 0) - 3_000)).toBeLessThan(300);
    expect(Math.abs((counts.d ?? 0) - 1_000)).toBeLessThan(300);
  });

  it('the others keep their rank after the drawn one', () => {
    expect(plan({ model: weighted({ a: 1, b: 1, c: 1, d: 1 }), random: () => 0.6 })).toEqual([
      'c',
      'a',
      'b',
      'd',
    ]);
  });

  it('only equally healthy providers share: a less healthy or cooling one is never drawn first', () => {
    const counts = firsts(
      { a: 1, b: 1, c: 100, d: 100 },
      { healthOf: { c: { uptime: 0.5 }, d: { coolingDown: true } } },
      2_000,
    );
    expect(Object.keys(counts).sort()).toEqual(['a', 'b']);
  });

  it('order or sort turn spreading off', () => {
    const heavy = weighted({ d: 1_000 });
    expect(plan({ model: heavy, order: ['b'], random: () => 0.5 })[0]).toBe('b');
    expect(plan({ model: heavy, sort: 'latency', random: () => 0.5 })[0]).toBe('a');
  });

  it('weights summing to 0 change nothing', () => {
    expect(plan({ model: weighted({ a: 0, b: 0, c: 0, d: 0 }), random: () => 0.5 })).toEqual([
      'a',
      'b',
      'c',
      'd',
    ]);
  });
});
