import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { withoutRetention } from './zero-retention.js';

describe('withoutRetention', () => {
  it('sends store: false where the provider stores by default (absent or null store)', () => {
    expect(withoutRetention({ input: 'x' }, true)).toEqual({ input: 'x', store: false });
    expect(withoutRetention({ input: 'x', store: null }, true)).toEqual({ input: 'x', store: false });
    expect(withoutRetention({ input: 'x', store: false }, true)).toEqual({ input: 'x', store: false });
  });

  it('leaves a body without store alone where the provider keeps nothing by default (chat)', () => {
    const body = { messages: [] };
    expect(withoutRetention(body, false)).toBe(body);
  });

  it.each([true, false])('refuses store: true (storesByDefault %s) naming store', (storesByDefault) => {
    const refuse = () => withoutRetention({ store: true }, storesByDefault);
    expect(refuse).toThrow(GatewayError);
    expect(refuse).toThrow(/zero data retention/);
    try {
      refuse();
    } catch (error) {
      expect(error).toMatchObject({ status: 400, code: 'INVALID_GATEWAY_SETTINGS', param: 'store' });
    }
  });

  it('refuses extended prompt caching (prompt_cache_retention "24h") naming it; in_memory passes', () => {
    expect(() => withoutRetention({ prompt_cache_retention: '24h' }, false)).toThrow(
      expect.objectContaining({
        status: 400,
        code: 'INVALID_GATEWAY_SETTINGS',
        param: 'prompt_cache_retention',
      }),
    );
    const body = { prompt_cache_retention: 'in_memory' };
    expect(withoutRetention(body, false)).toBe(body);
  });
});
