import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { SqliteStore } from '../store/sqlite-store.js';
import { generateApiKey } from './api-keys.js';
import { createAuthenticator } from './authenticate.js';

const request = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;

async function setup() {
  const store = new SqliteStore(':memory:');
  await store.migrate();
  await store.upsertOrganization({ id: 'acme', monthlyLimitUsd: '25.5' });
  const { key, prefix, keyHash } = generateApiKey();
  const info = await store.createApiKey({ orgId: 'acme', prefix, keyHash });
  let now = 1_000;
  const authenticate = createAuthenticator({ store, cacheTtlMs: 1_000, now: () => now });
  return { store, key, info, authenticate, advance: (ms: number) => (now += ms) };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (error: unknown) => (error instanceof GatewayError ? error.code : 'other'),
  );

describe('createAuthenticator', () => {
  it('accepts Bearer and x-api-key, and compiles the monthly cap to nano-USD', async () => {
    const { key, authenticate } = await setup();
    const bearer = await authenticate(request({ authorization: `Bearer ${key}` }));
    expect(bearer.org.id).toBe('acme');
    expect(bearer.monthlyLimitNano).toBe(25_500_000_000n);
    expect((await authenticate(request({ 'x-api-key': key }))).keyId).toBe(bearer.keyId);
  });

  it.each([
    // A row written before caps were normalised: "5e-7" made every request of the organization fail.
    ['5e-7', 500n],
    ['1000000000', 1_000_000_000_000_000_000n],
    ['123456789.123456789', 123_456_789_123_456_789n],
  ])('reads a stored cap of %s exactly', async (stored, nano) => {
    const { store, key, authenticate } = await setup();
    await store.upsertOrganization({ id: 'acme', monthlyLimitUsd: stored });
    expect((await authenticate(request({ authorization: `Bearer ${key}` }))).monthlyLimitNano).toBe(nano);
  });

  it.each([
    ['no key', {}],
    ['an unknown key', { authorization: 'Bearer sk-gw-unknown' }],
    ['a malformed header', { authorization: 'Basic abc' }],
  ])('refuses %s with UNAUTHORIZED', async (_name, headers) => {
    const { authenticate } = await setup();
    expect(await codeOf(authenticate(request(headers)))).toBe('UNAUTHORIZED');
  });

  it('a revoked key stops working once the cache entry expires', async () => {
    const { store, key, info, authenticate, advance } = await setup();
    const headers = { authorization: `Bearer ${key}` };
    await authenticate(request(headers));
    await store.revokeApiKey(info.id);
    expect(await codeOf(authenticate(request(headers)))).toBe('ok');
    advance(1_001);
    expect(await codeOf(authenticate(request(headers)))).toBe('UNAUTHORIZED');
  });

  it('a deleted organization answers USER_NOT_FOUND', async () => {
    const { store, key, authenticate } = await setup();
    await store.deleteOrganization('acme');
    expect(await codeOf(authenticate(request({ authorization: `Bearer ${key}` })))).toBe('USER_NOT_FOUND');
  });
});
