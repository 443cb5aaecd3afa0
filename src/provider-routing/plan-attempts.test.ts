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
