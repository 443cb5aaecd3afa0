import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { defaultGatewaySettings, type GatewaySettings } from '../gateway-settings/gateway-settings.js';
import { readRoutingRequest } from './routing-request.js';

const read = (body: Record<string, unknown>, gateway: Partial<GatewaySettings> = {}) =>
  readRoutingRequest(body, { ...defaultGatewaySettings, ...gateway }, 3);

function refusal(body: Record<string, unknown>, gateway: Partial<GatewaySettings> = {}): GatewayError {
  try {
    read(body, gateway);
  } catch (error) {
    if (error instanceof GatewayError) return error;
  }
  throw new Error('expected a refusal');
}

describe('readRoutingRequest: models', () => {
  it('reads the list as given (duplicates are resolved later)', () => {
    expect(read({ models: ['a/x', 'b/y', 'a/x'] }).models).toEqual(['a/x', 'b/y', 'a/x']);
    expect(read({}).models).toEqual([]);
  });

  it.each([
    ['not an array', { models: 'a/x' }, 'models'],
    ['over the bound', { models: ['a/1', 'a/2', 'a/3', 'a/4'] }, 'models'],
    ['a non-string entry', { models: ['a/1', 7] }, 'models.1'],
    ['an empty entry', { models: [''] }, 'models.0'],
  ])('%s is 400 BAD_REQUEST naming the place', (_name, body, param) => {
    const error = refusal(body);
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.param).toBe(param);
  });
});

describe('readRoutingRequest: the provider object with the gateway members', () => {
  it.each([
    ['nothing', {}, {}, { zdr: undefined, order: undefined, only: undefined }],
    [
      'provider alone',
      { order: ['p'], only: ['p', 'q'], zdr: true },
      {},
      { zdr: true, order: ['p'], only: ['p', 'q'] },
    ],
    [
      'gateway alone',
      {},
      { order: ['g'], only: ['g'], zdr: false },
      { zdr: false, order: ['g'], only: ['g'] },
    ],
    ['the same order in both', { order: ['a', 'b'] }, { order: ['a', 'b'] }, { order: ['a', 'b'] }],
    [
      'only in both: what they share',
      { only: ['a', 'b', 'c'] },
      { only: ['c', 'b', 'z'] },
      { only: ['b', 'c'] },
    ],
    ['zdr true on either side wins', { zdr: true }, { zdr: false }, { zdr: true }],
    ['data_collection deny means zdr', { data_collection: 'deny' }, {}, { zdr: true }],
    [
      'ignore, allow_fallbacks and sort pass through',
      { ignore: ['x'], allow_fallbacks: false, sort: 'price' },
      {},
      { ignore: ['x'], allowFallbacks: false, sort: 'price' },
    ],
  ])('%s', (_name, provider, gateway, expected) => {
    expect(read({ provider }, gateway).choice).toMatchObject(expected);
  });

  it('errors name the member a rule came from', () => {
    const { names } = read({ provider: { only: ['a'], order: ['a'], zdr: true, ignore: ['b'] } }).choice;
    expect(names).toEqual({
      only: 'provider.only',
      order: 'provider.order',
      zdr: 'provider.zdr',
      ignore: 'provider.ignore',
    });
    expect(read({ provider: { only: ['a'] } }, { only: ['a'] }).choice.names).toEqual({});
  });

  it.each([
    [
      'provider.zdr false with gateway.zdr true',
      { zdr: false },
      { zdr: true },
      'provider.zdr',
      'gateway.zdr',
    ],
    ['only lists with nothing in common', { only: ['a'] }, { only: ['b'] }, 'provider.only', 'gateway.only'],
    ['two different orders', { order: ['a', 'b'] }, { order: ['b', 'a'] }, 'provider.order', 'gateway.order'],
    ['ignoring an ordered provider', { ignore: ['a'] }, { order: ['a'] }, 'provider.ignore', 'gateway.order'],
    [
      'ignoring a provider of its own only',
      { ignore: ['a'], only: ['a', 'b'] },
      {},
      'provider.ignore',
      'provider.only',
    ],
  ])('conflict: %s is 400 naming both', (_name, provider, gateway, param, other) => {
    const error = refusal({ provider }, gateway);
    expect(error.status).toBe(400);
    expect(error.code).toBe('INVALID_GATEWAY_SETTINGS');
    expect(error.param).toBe(param);
    expect(error.message).toContain(param);
    expect(error.message).toContain(other);
  });

  it.each([
    ['not an object', 'fast', 'provider'],
    ['an unsupported member', { quantizations: ['fp8'] }, 'provider.quantizations'],
    ['a wrong sort', { sort: 'cheapest' }, 'provider.sort'],
    ['a wrong type', { allow_fallbacks: 'no' }, 'provider.allow_fallbacks'],
    ['too many ids', { order: Array.from({ length: 65 }, (_, i) => `p${i}`) }, 'provider.order'],
  ])('%s is 400 INVALID_GATEWAY_SETTINGS naming it', (_name, provider, param) => {
    const error = refusal({ provider });
    expect(error.code).toBe('INVALID_GATEWAY_SETTINGS');
    expect(error.param).toBe(param);
  });
});
