import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/** Failed authentications are throttled per client address; keys are stored as keyed hashes. */
let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway((url) =>
    testConfig(url, { server: { authFailures: { burst: 5, windowSeconds: 30 } } }),
  );
});
afterAll(async () => env.stop());

const models = (key: string) =>
  fetch(`${env.baseURL}/models`, { headers: { authorization: `Bearer ${key}` } });

describe('failed authentications', () => {
  it('a burst of wrong keys gets 429 with retry-after, while a valid key keeps working', async () => {
    expect((await models(TEST_KEY)).status).toBe(200);
    for (let i = 0; i < 5; i += 1) expect((await models(`sk-gw-guess-${i}`)).status).toBe(401);
    const refused = await models('sk-gw-guess-next');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(30);
    const body = (await refused.json()) as { error: { code: string } };
    expect(body.error.code).toBe('TOO_MANY_REQUESTS');
    expect((await models(TEST_KEY)).status).toBe(200);
  });

  it('the database holds neither the keys nor their sha256', async () => {
    const store = await openStore(env.databaseUrl);
    try {
      const rows = JSON.stringify(await store.listApiKeys());
      expect(rows).not.toContain(TEST_KEY);
      expect(rows).not.toContain(createHash('sha256').update(TEST_KEY).digest('hex'));
      expect(rows).toContain('hmac-sha256:');
    } finally {
      await store.close();
    }
  });
});
