import { expect } from 'vitest';
import { isRecord, type JsonObject } from '../../src/json/json.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * The gateway of the response cache's end-to-end tests, in front of the fake OpenAI upstream (which counts the
 * requests that reach it), and helpers to ask it things. Every test asks something of its own (a fresh marker
 * in the prompt).
 */

export const OTHER_KEY = 'sk-gw-cache-other-org-key-0123';
export const PLAIN_KEY = 'sk-gw-cache-no-cache-org-0123';
/** What one fake answer costs: 12 input tokens at 2e-6 USD and 7 output tokens at 8e-6 USD, in nano-USD. */
export const COST = 12 * 2000 + 7 * 8000;

export interface Answer {
  status: number;
  cache: string | null;
  genId: string | null;
  text: string;
}

export const chatBody = (marker: string, extra: JsonObject = {}): JsonObject => ({
  model: 'acme/chat-large',
  messages: [{ role: 'user', content: `Say hello (${marker})` }],
  ...extra,
});

export const json = (answer: Answer): JsonObject => {
  const parsed: unknown = JSON.parse(answer.text);
  if (!isRecord(parsed)) throw new Error(`not an object: ${answer.text}`);
  return parsed;
};

/**
 * Starts the gateway: organizations `acme` (cache on, a monthly cap), `other` (cache on) and `plain` (cache
 * off); a zero-data-retention provider beside the default one. Reads and writes of the cache are recorded.
 */
export async function startCacheGateway() {
  const env: TestGateway = await startTestGateway((url) => {
    const config = testConfig(url);
    const zdrProvider = { id: 'zdr-cloud', api: 'openai', baseUrl: url, apiKey: 'sk-upstream', zdr: true };
    const [chatModel, ...others] = config.models;
    const zdrEndpoint = {
      provider: 'zdr-cloud',
      model: 'chat-large-2026',
      pricing: { input: '0.000002', output: '0.000008' },
    };
    return {
      ...config,
      providers: [...config.providers, zdrProvider],
      models: [{ ...chatModel, endpoints: [...(chatModel?.endpoints ?? []), zdrEndpoint] }, ...others],
      organizations: [
        { id: 'acme', apiKeys: [TEST_KEY], monthlyLimit: 1000, cache: { ttlSeconds: 300 } },
        { id: 'other', apiKeys: [OTHER_KEY], cache: { ttlSeconds: 300 } },
        { id: 'plain', apiKeys: [PLAIN_KEY] },
      ],
    };
  });
  const writes: string[] = [];
  const reads: string[] = [];
  const cache = env.gateway.deps.responseCache;
  if (!cache) throw new Error('the gateway has no response cache');
  const write = cache.write.bind(cache);
  cache.write = (key, text, ttlMs) => {
    writes.push(text);
    return write(key, text, ttlMs);
  };
  const read = cache.read.bind(cache);
  cache.read = (key, orgId) => {
    reads.push(key);
    return read(key, orgId);
  };

  const post = async (
    path: string,
    body: JsonObject,
    headers: Record<string, string> = {},
    key = TEST_KEY,
  ) => {
    const response = await fetch(`${env.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const answer: Answer = {
      status: response.status,
      cache: response.headers.get('x-gateway-cache'),
      genId: response.headers.get('x-generation-id'),
      text: await response.text(),
    };
    return answer;
  };

  /** Requests the upstream received whose body mentions `marker`. */
  const upstreamCalls = (marker: string) =>
    env.upstream.received.filter((request) => JSON.stringify(request.body).includes(marker)).length;

  /** The generation record of `genId` (written first). */
  const record = async (genId: string | null): Promise<JsonObject> => {
    await env.gateway.deps.records.flush();
    const response = await fetch(`${env.baseURL}/generation/${genId}`, {
      headers: { authorization: `Bearer ${TEST_KEY}` },
    });
    expect(response.status).toBe(200);
    const body: unknown = await response.json();
    return isRecord(body) && isRecord(body.data) ? body.data : {};
  };

  return { env, writes, reads, post, upstreamCalls, record };
}
