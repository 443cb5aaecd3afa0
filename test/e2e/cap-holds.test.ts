import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_OUTPUT_BOUND } from '../../src/accounting/worst-case.js';
import { SUMMARY_PROMPT_TOKENS } from '../../src/codecs/responses/gateway-compaction.js';
import { monthOf } from '../../src/limits/limiter.js';
import { orgAccount } from '../../src/limits/spend-account.js';
import { usdText } from '../../src/pipeline/reserve-spend.js';
import { chatUsage, completionBody } from '../../src/test-support/completion-body.js';
import { recordOf } from '../../src/test-support/record-of.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * A monthly cap holds whatever the request or the upstream does: every call is reserved at its worst case
 * before it is sent, and never billed past that reservation; what the request asks for (`n`, output
 * limits, the gateway's own instructions) is what is reserved; a client that leaves while a provider works
 * is billed what the provider bills, the planner's call included; no call that used anything is free.
 */
const CAPPED_KEY = 'sk-gw-test-cap-holds';
const TINY_KEY = 'sk-gw-test-cap-holds-tiny';
const SUB_NANO_KEY = 'sk-gw-test-cap-holds-sub-nano';
const MEDIA_KEY = 'sk-gw-test-cap-holds-media';
const AUDIO_KEY = 'sk-gw-test-cap-holds-audio';
const ROOMY_KEY = 'sk-gw-test-cap-holds-roomy';
let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway((url) => {
    const config = testConfig(url);
    return {
      ...config,
      models: [
        ...config.models,
        {
          // No output limit in the catalog.
          id: 'acme/chat-unbounded',
          api_compatibility: ['chat-completion', 'open-responses'],
          endpoints: [
            {
              provider: 'fake-cloud',
              model: 'chat-unbounded-1',
              pricing: { input: '0.000002', output: '0.000008' },
            },
          ],
        },
        {
          id: 'acme/embed-tiny',
          name: 'Acme Embed Tiny',
          api_compatibility: ['embeddings'],
          endpoints: [{ provider: 'fake-cloud', model: 'embed-tiny-1', pricing: { input: '0.0000000001' } }],
        },
      ],
      organizations: [
        ...config.organizations,
        { id: 'capped', monthlyLimit: '0.01', apiKeys: [CAPPED_KEY] },
        { id: 'tiny', monthlyLimit: '0.000001', apiKeys: [TINY_KEY] },
        { id: 'sub-nano', monthlyLimit: '0.00000002', apiKeys: [SUB_NANO_KEY] },
        // Room for one image's bound (48,200 tokens at $0.000002: $0.0964), not for 100 KB of text ($0.2).
        { id: 'media', monthlyLimit: '0.15', apiKeys: [MEDIA_KEY] },
        { id: 'audio', monthlyLimit: '0.02', apiKeys: [AUDIO_KEY] },
        { id: 'roomy', monthlyLimit: '10', apiKeys: [ROOMY_KEY] },
      ],
    };
  });
});
afterAll(() => env.stop());

const post = (path: string, body: Record<string, unknown>, key = CAPPED_KEY, signal?: AbortSignal) =>
  fetch(`${env.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal,
  });

/** The organization's spend as its cap counts it: under its account as created (see spend-account.ts). */
const spentNano = async (org: string) => {
  const createdAt = (await env.gateway.deps.store.getOrganization(org))?.createdAt;
  return (await env.gateway.deps.limiter.usage(orgAccount(org, createdAt), monthOf(Date.now()))).spentNano;
};

describe('what a request asks for is what is reserved', () => {
  it('text that starts like a data URI is reserved as the text it is billed as; an image part as an image', async () => {
    const filler = 'lorem ipsum '.repeat(8_400);
    for (const content of [
      `data:image/ ${filler}`,
      `data:audio/ ${filler}`,
      [{ type: 'text', text: `data:image/png;base64,${filler}` }],
    ]) {
      const response = await post(
        '/chat/completions',
        { model: 'acme/chat-large', max_tokens: 1, messages: [{ role: 'user', content }] },
        MEDIA_KEY,
      );
      expect(response.status).toBe(402);
    }
    const image = { type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(100_000)}` } };
    const response = await post(
      '/chat/completions',
      { model: 'acme/chat-large', max_tokens: 1, messages: [{ role: 'user', content: [image] }] },
      MEDIA_KEY,
    );
    expect(response.status).toBe(200);
  });

  it('n must be a whole positive number: a string an upstream reads as 5 is refused, nothing sent', async () => {
    const before = env.upstream.received.length;
    const response = await post('/chat/completions', {
      model: 'acme/chat-large',
      n: '5',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('n');
    // At most OpenAI's 128: n widens what usage is believed (and reserved) by as much.
    const many = await post('/chat/completions', {
      model: 'acme/chat-large',
      n: 1_000_000_000,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(many.status).toBe(400);
    expect(env.upstream.received.length).toBe(before);
  });

  it('the Messages ingress does not pass on chat members it has no reservation for (n, max_completion_tokens)', async () => {
    const response = await post('/messages', {
      model: 'acme/chat-large',
      max_tokens: 50,
      n: 5,
      max_completion_tokens: 16_000,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.status).toBe(200);
    const sent = env.upstream.received.at(-1)?.body ?? {};
    expect(sent.n).toBeUndefined();
    expect(sent.max_completion_tokens).toBeUndefined();
    expect(sent.max_tokens).toBe(50);
    const warnings = response.headers.get('x-gateway-warnings') ?? '';
    expect(warnings).toContain('n is not a Messages API member');
    expect(warnings).toContain('max_completion_tokens is not a Messages API member');
  });

  it('a compaction takes no output limit (its output is the model limit, which is reserved)', async () => {
    const response = await post('/responses/compact', {
      model: 'acme/chat-large',
      input: 'hi',
      max_output_tokens: 1,
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('max_output_tokens');
  });

  it("a compaction's reservation counts the gateway's own summary instructions", async () => {
    const response = await post('/responses/compact', { model: 'acme/chat-large', input: 'hi' }, TINY_KEY);
    expect(response.status).toBe(402);
    // The prompt bound of {"input":"hi"} (13 tokens: a token per byte, keys and quotes included) plus the
    // summary instructions, at $0.000002; the model's 16,384 output tokens at $0.000008.
    const worst = (13 + SUMMARY_PROMPT_TOKENS) * 2_000 + 16_384 * 8_000;
    const message = ((await response.json()) as { error: { message: string } }).error.message;
    expect(message).toContain(`this request may cost up to $${usdText(worst)}.`);
  });
});

describe('an upstream never bills past the reservation', () => {
  it('a request without an output limit, to a model the catalog gives none, is sent the limit it was reserved at', async () => {
    const ask = async (path: string, body: Record<string, unknown>, key: string) => {
      const response = await post(path, { model: 'acme/chat-unbounded', ...body }, key);
      expect(response.status).toBe(200);
      return env.upstream.received.at(-1)?.body ?? {};
    };
    const messages = [{ role: 'user', content: 'hi' }];
    expect((await ask('/chat/completions', { messages }, ROOMY_KEY)).max_tokens).toBe(DEFAULT_OUTPUT_BOUND);
    expect((await ask('/responses', { input: 'hi' }, ROOMY_KEY)).max_output_tokens).toBe(
      DEFAULT_OUTPUT_BOUND,
    );
    // A limit of the request's own is kept; without a cap nothing is reserved, and nothing is added.
    expect((await ask('/chat/completions', { messages, max_tokens: 7 }, ROOMY_KEY)).max_tokens).toBe(7);
    expect(await ask('/chat/completions', { messages }, TEST_KEY)).not.toHaveProperty('max_tokens');
  });

  it('usage far past the request max_tokens is billed the reservation, with a warning; spend stays under the cap', async () => {
    const before = await spentNano('capped');
    env.upstream.faults.push({ kind: 'status', status: 200, body: completionBody(chatUsage(10, 16_000)) });
    const response = await post('/chat/completions', {
      model: 'acme/chat-large',
      max_tokens: 1,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { usage: { cost: number; completion_tokens: number } };
    // The reported tokens are kept; the cost is cut to what was reserved (16,000 tokens would be 128 M nano).
    expect(body.usage.completion_tokens).toBe(16_000);
    expect(body.usage.cost).toBeLessThan(1_000_000);
    expect(response.headers.get('x-gateway-warnings')).toContain(
      `reserved for the request's limits; billed ${body.usage.cost}`,
    );
    expect((await spentNano('capped')) - before).toBe(BigInt(body.usage.cost));
    expect(await spentNano('capped')).toBeLessThanOrEqual(10_000_000n);
    const record = await recordOf(env.baseURL, response.headers.get('x-generation-id') ?? '', CAPPED_KEY);
    expect(record.costNanoUsd).toBe(body.usage.cost);
  });
});

describe('a client that leaves while the planner works', () => {
  it("is billed the planner's prompt, which its provider bills", async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    env.upstream.faults.push({ kind: 'hold', until: held });
    const before = env.upstream.received.length;
    const leaving = new AbortController();
    const request = post(
      '/chat/completions',
      {
        model: 'acme/chat-large:planning:acme/chat-large',
        messages: [{ role: 'user', content: 'Plan a careful answer about database indexes. '.repeat(40) }],
        gateway: { planningTriggerScore: 0 },
      },
      TEST_KEY,
      leaving.signal,
    ).catch((error: unknown) => error);
    // The planner's request reached its provider, which holds it.
    await expect.poll(() => env.upstream.received.length, { timeout: 5_000 }).toBe(before + 1);
    const since = new Date(Date.now() - 60_000).toISOString();
    const cancelledBefore = env.upstream.cancelledStreams;
    leaving.abort();
    await request;
    // The gateway saw its client leave and closed the planner's upstream request; only then may it answer.
    await expect.poll(() => env.upstream.cancelledStreams, { timeout: 5_000 }).toBe(cancelledBefore + 1);
    release();
    // The request's record (the client is gone: no header names it), once the gateway saw it leave.
    const cancelled = async () => {
      await env.gateway.deps.records.flush();
      const page = await env.gateway.deps.store.listRecords(
        { orgId: 'acme', status: 'cancelled', from: since, to: new Date(Date.now() + 60_000).toISOString() },
        { limit: 1 },
      );
      return page.records[0]?.genId;
    };
    await expect.poll(cancelled, { timeout: 5_000 }).toBeDefined();
    const record = await recordOf(env.baseURL, (await cancelled()) ?? '');
    expect(record.status).toBe('cancelled');
    // The planner's prompt (the conversation and its instructions), counted, at the input price.
    const planning = (record as unknown as { planningInputTokens: number }).planningInputTokens;
    expect(planning).toBeGreaterThan(100);
    expect(record.inputTokens).toBe(0);
    expect(record.costNanoUsd).toBe(planning * 2_000);
    expect(record.warnings.join(' ')).toContain('worked on the plan');
  });
});

describe('a client that leaves while the provider works', () => {
  it('is billed at most the reservation, though the prompt counts more than the bound (400 tiny audio clips)', async () => {
    let release: () => void = () => undefined;
    env.upstream.faults.push({ kind: 'hold', until: new Promise<void>((resolve) => (release = resolve)) });
    const received = env.upstream.received.length;
    const cancelled = env.upstream.cancelledStreams;
    const leaving = new AbortController();
    const clip = { type: 'input_audio', input_audio: { data: 'AA==', format: 'wav' } };
    const request = post(
      '/chat/completions',
      {
        model: 'acme/chat-large',
        max_tokens: 1,
        messages: [{ role: 'user', content: Array(400).fill(clip) }],
      },
      AUDIO_KEY,
      leaving.signal,
    ).catch((error: unknown) => error);
    await expect.poll(() => env.upstream.received.length, { timeout: 5_000 }).toBe(received + 1);
    leaving.abort();
    await request;
    await expect.poll(() => env.upstream.cancelledStreams, { timeout: 5_000 }).toBe(cancelled + 1);
    release();
    // Counted, each clip is a minute of audio (600 tokens: $0.48 for 400); reserved, 19 tokens each.
    await expect.poll(() => spentNano('audio'), { timeout: 5_000 }).toBeGreaterThan(0n);
    expect(await spentNano('audio')).toBeLessThanOrEqual(20_000_000n);
  });
});

describe('no call that used anything is free', () => {
  it('an embedding priced below a nano-USD costs 1 nano-USD, so a run of them reaches a cap', async () => {
    // 5 tokens (the fake upstream's count for one input) at $0.0000000001: 0.5 nano-USD, billed 1.
    const costs: number[] = [];
    let status = 200;
    while (status === 200 && costs.length < 50) {
      const response = await post('/embeddings', { model: 'acme/embed-tiny', input: 'x' }, SUB_NANO_KEY);
      status = response.status;
      if (status === 200) costs.push(((await response.json()) as { usage: { cost: number } }).usage.cost);
    }
    expect(costs.slice(0, 3)).toEqual([1, 1, 1]);
    // A cap of 20 nano-USD: reached after 20 calls at most (each reserves its worst case first).
    expect(status).toBe(402);
    expect(costs.length).toBeLessThanOrEqual(20);
    expect(await spentNano('sub-nano')).toBeLessThanOrEqual(20n);
  });
});
