import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../store/store-errors.js';
import { GatewayError, serviceUnavailable, toGatewayError } from './gateway-error.js';

describe('toGatewayError', () => {
  it.each([
    ['a GatewayError, as it is', serviceUnavailable('redis down', 3), 503, 'service_unavailable', '3'],
    [
      'the store unavailable: 503 with retry-after',
      new StoreUnavailableError('ECONNREFUSED'),
      503,
      'service_unavailable',
      '1',
    ],
    ['anything else: 500', new Error('boom'), 500, 'server_error', undefined],
    ['a thrown string: 500', 'boom', 500, 'server_error', undefined],
  ])('maps %s', (_name, thrown, status, type, retryAfter) => {
    const error = toGatewayError(thrown);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.status).toBe(status);
    expect(error.type).toBe(type);
    expect(error.code).toBe('INTERNAL_SERVER_ERROR');
    expect(error.headers?.['retry-after']).toBe(retryAfter);
  });

  it('never shows the store error text (addresses, drivers) to the client', () => {
    const error = toGatewayError(new StoreUnavailableError('connect ECONNREFUSED 10.1.2.3:5432'));
    expect(JSON.stringify(error.toBody())).not.toContain('10.1.2.3');
  });
});
