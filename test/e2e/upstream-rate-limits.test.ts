import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HealthTracker } from '../../src/provider-routing/health-tracker.js';
import {
  type FakeAnthropicUpstream,
  startFakeAnthropicUpstream,
} from '../../src/test-support/fake-anthropic-upstream.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/** What clients of the official SDKs see when every upstream is rate-limited or Anthropic is overloaded. */
let env: TestGateway;
let secondary: FakeUpstream;
let anthropic: FakeAnthropicUpstream;
let openai: OpenAI;
let claude: Anthropic;

beforeAll(async () => {
  secondary = await startFakeOpenAIUpstream();
  anthropic = await startFakeAnthropicUpstream();
  env = await startTestGateway((url) => {
    const pricing = { input: '0.000002', output: '0.000008' };
    return {
      ...testConfig(url),
      providers: [
        // retries: 0: one fault per request fails over at once (retries are tested apart).
        { id: 'primary', api: 'openai', baseUrl: url, apiKey: 'k1', timeoutMs: 2_000, retries: 0 },
        {
          id: 'secondary',
          api: 'openai',
          baseUrl: secondary.url,
          apiKey: 'k2',
          timeoutMs: 2_000,
          retries: 0,
        },
        {
          id: 'claude-cloud',
          api: 'anthropic',
          baseUrl: anthropic.url,
          apiKey: 'sk-ant-test',
          timeoutMs: 2_000,
          retries: 0,
        },
      ],
      models: [
        {
          id: 'acme/duo',
          endpoints: [
            { provider: 'primary', model: 'duo-p', pricing },
            { provider: 'secondary', model: 'duo-s', pricing },
          ],
        },
        {
          id: 'acme/claude-x',
          max_tokens: 8192,
          endpoints: [{ provider: 'claude-cloud', model: 'claude-x-2026', pricing }],
        },
      ],
    };
  });
  openai = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
  claude = new Anthropic({ apiKey: TEST_KEY, baseURL: env.baseURL.replace(/\/v1$/, ''), maxRetries: 0 });
});
afterAll(async () => {
  await env.stop();
  await secondary.close();
  await anthropic.close();
});
beforeEach(() => {
  env.upstream.faults.length = 0;
  secondary.faults.length = 0;
  anthropic.faults.length = 0;
  env.gateway.deps.health = new HealthTracker();
});

const limited = (retryAfter: string) => ({
  kind: 'status' as const,
  status: 429,
  headers: { 'retry-after': retryAfter },
  body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
});

describe('every upstream rate-limited', () => {
  it('the openai SDK sees 429 upstream_rate_limited with the smallest retry-after', async () => {
    env.upstream.faults.push(limited('7'));
    secondary.faults.push(limited('2.5'));
    const error = await openai.chat.completions
      .create({ model: 'acme/duo', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimit = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimit.status).toBe(429);
    expect(rateLimit.code).toBe('TOO_MANY_REQUESTS');
    expect(rateLimit.type).toBe('upstream_rate_limited');
    expect(rateLimit.headers.get('retry-after')).toBe('3');
    expect(rateLimit.headers.get('retry-after-ms')).toBe('2500');
  });

  it('one provider rate-limited and one failing is a 502 without retry-after', async () => {
    env.upstream.faults.push(limited('7'));
    secondary.faults.push({ kind: 'status', status: 503 });
    const error = await openai.chat.completions
      .create({ model: 'acme/duo', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.InternalServerError);
    const failure = error as InstanceType<typeof OpenAI.InternalServerError>;
    expect(failure.status).toBe(502);
    expect(failure.headers.get('retry-after')).toBeNull();
  });
});

describe('Anthropic overloaded (529)', () => {
  it('the Anthropic SDK on the Messages ingress sees overloaded_error', async () => {
    anthropic.faults.push({
      kind: 'status',
      status: 529,
      errorType: 'overloaded_error',
      message: 'Overloaded',
    });
    const error = await claude.messages
      .create({ model: 'acme/claude-x', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.APIError);
    const apiError = error as InstanceType<typeof Anthropic.APIError>;
    expect(apiError.status).toBe(502);
    expect(apiError.type).toBe('overloaded_error');
    expect(apiError.message).toContain('Overloaded');
  });

  it('the Anthropic SDK sees rate_limit_error with retry-after when every upstream is rate-limited', async () => {
    env.upstream.faults.push(limited('4'));
    secondary.faults.push(limited('9'));
    const error = await claude.messages
      .create({ model: 'acme/duo', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    const rateLimit = error as InstanceType<typeof Anthropic.RateLimitError>;
    expect(rateLimit.type).toBe('rate_limit_error');
    expect(rateLimit.headers?.get('retry-after')).toBe('4');
  });
});
