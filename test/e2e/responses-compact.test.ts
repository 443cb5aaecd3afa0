import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCompaction, gatewaySummary, summaryText } from '../../src/codecs/responses/compaction-item.js';
import { SUMMARY_PROMPT } from '../../src/codecs/responses/gateway-compaction.js';
import {
  type FakeAnthropicUpstream,
  startFakeAnthropicUpstream,
} from '../../src/test-support/fake-anthropic-upstream.js';
import {
  type FakeGeminiUpstream,
  startFakeGeminiUpstream,
} from '../../src/test-support/fake-gemini-upstream.js';
import { FAKE_COMPACTION } from '../../src/test-support/fake-openai-responses.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';
import { schemaErrors } from '../conformance/published-schemas.js';

let native: TestGateway;
let chatOnly: TestGateway;
let claude: TestGateway;
let anthropic: FakeAnthropicUpstream;
let gem: TestGateway;
let gemini: FakeGeminiUpstream;

function anthropicConfig(url: string) {
  return {
    providers: [
      { id: 'claude-cloud', api: 'anthropic', baseUrl: url, apiKey: 'sk-ant-test', timeoutMs: 2000 },
    ],
    models: [
      {
        id: 'acme/claude-x',
        name: 'Acme Claude X',
        api_compatibility: ['chat-completion', 'open-responses'],
        max_tokens: 8192,
        endpoints: [
          {
            provider: 'claude-cloud',
            model: 'claude-x-2026',
            pricing: { input: '0.000003', output: '0.000015' },
          },
        ],
      },
    ],
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY] }],
  };
}

function geminiConfig(url: string) {
  const provider = {
    id: 'gem-cloud',
    api: 'gemini',
    baseUrl: `${url}/v1beta`,
    apiKey: 'gem-test',
    timeoutMs: 2000,
  };
  const endpoint = {
    provider: 'gem-cloud',
    model: 'gem-x-001',
    pricing: { input: '0.0000003', output: '0.0000025' },
  };
  return {
    providers: [provider],
    models: [
      { id: 'google/gem-x', name: 'Gem X', api_compatibility: ['open-responses'], endpoints: [endpoint] },
    ],
    organizations: [{ id: 'acme', apiKeys: [TEST_KEY] }],
  };
}

beforeAll(async () => {
  [anthropic, gemini] = await Promise.all([startFakeAnthropicUpstream(), startFakeGeminiUpstream()]);
  [native, chatOnly, claude, gem] = await Promise.all([
    startTestGateway(),
    startTestGateway((url) => {
      const config = testConfig(url);
      return {
        ...config,
        providers: config.providers.map((provider) => ({ ...provider, supports: ['chat'] })),
      };
    }),
    startTestGateway(() => anthropicConfig(anthropic.url)),
    startTestGateway(() => geminiConfig(gemini.url)),
  ]);
});
afterAll(async () => {
  await Promise.all([native.stop(), chatOnly.stop(), claude.stop(), gem.stop()]);
  await Promise.all([anthropic.close(), gemini.close()]);
});

const CONVERSATION = [
  { role: 'user', content: 'Plan a landing page for a dog cafe.' },
  { role: 'assistant', content: 'Sure: a hero image, the menu and opening hours.' },
  { role: 'user', content: 'Add a booking form.' },
];

async function post(env: TestGateway, path: string, body: unknown) {
  const response = await fetch(`${env.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const json: unknown = await response.json();
  return { status: response.status, body: isObject(json) ? json : {} };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The answer conforms to both published `CompactResource` schemas and keeps the two user messages. */
function expectCompactResource(body: Record<string, unknown>): Record<string, unknown> {
  expect(schemaErrors('open-responses', 'CompactResource', body)).toStrictEqual([]);
  expect(schemaErrors('openai', 'CompactResource', body)).toStrictEqual([]);
  expect(body.id).toMatch(/^gen_/);
  expect(body.object).toBe('response.compaction');
  const output = Array.isArray(body.output) ? body.output : [];
  expect(output.slice(0, 2)).toMatchObject([
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: CONVERSATION[0]?.content }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: CONVERSATION[2]?.content }] },
  ]);
  expect(output).toHaveLength(3);
  const item = output[2];
  expect(item).toMatchObject({ type: 'compaction', id: expect.stringMatching(/^cmp_/) });
  return isObject(item) ? item : {};
}

describe('POST /v1/responses/compact', () => {
  it('answers 400 naming model when it is missing', async () => {
    const { status, body } = await post(native, '/responses/compact', { input: CONVERSATION });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'BAD_REQUEST', param: 'model' });
    expect(native.upstream.received.some((request) => request.path.endsWith('/compact'))).toBe(false);
  });

  it('forwards to a native Responses upstream and round-trips its item untouched', async () => {
    const { status, body } = await post(native, '/responses/compact', {
      model: 'acme/chat-large',
      input: CONVERSATION,
    });
    expect(status).toBe(200);
    const sent = native.upstream.received.at(-1);
    expect(sent?.path).toBe('/v1/responses/compact');
    expect(sent?.body).toMatchObject({ model: 'chat-large-2026', input: CONVERSATION });
    const item = expectCompactResource(body);
    expect(item.encrypted_content).toBe(FAKE_COMPACTION);
    expect(body.usage).toMatchObject({ input_tokens: 12, output_tokens: 7, total_tokens: 19 });

    const output = Array.isArray(body.output) ? body.output : [];
    const next = await post(native, '/responses', {
      model: 'acme/chat-large',
      input: [...output, { role: 'user', content: 'Go on.' }],
    });
    expect(next.status).toBe(200);
    const resent = native.upstream.received.at(-1);
    expect(resent?.path).toBe('/v1/responses');
    expect(resent?.body.input).toContainEqual(item);
  });

  it('expands a gateway-made item before sending it to a native Responses upstream', async () => {
    const item = {
      type: 'compaction',
      id: 'cmp_1',
      encrypted_content: encodeCompaction('They want a cafe.'),
    };
    const { status } = await post(native, '/responses', {
      model: 'acme/chat-large',
      input: [item, { role: 'user', content: 'Go on.' }],
    });
    expect(status).toBe(200);
    expect(native.upstream.received.at(-1)?.body.input).toEqual([
      {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: summaryText('They want a cafe.') }],
      },
      { role: 'user', content: 'Go on.' },
    ]);
  });

  it('compacts over a chat-only provider with a summary, read back by /v1/responses', async () => {
    const { status, body } = await post(chatOnly, '/responses/compact', {
      model: 'acme/chat-large',
      instructions: 'Be brief',
      input: CONVERSATION,
    });
    expect(status).toBe(200);
    const sent = chatOnly.upstream.received.at(-1);
    expect(sent?.path).toBe('/v1/chat/completions');
    const messages = Array.isArray(sent?.body.messages) ? sent.body.messages : [];
    expect(messages[0]).toEqual({ role: 'system', content: SUMMARY_PROMPT });
    const transcript = isObject(messages[1]) ? String(messages[1].content) : '';
    for (const turn of CONVERSATION) expect(transcript).toContain(`[${turn.role}] ${turn.content}`);
    expect(transcript).toContain('[system] Be brief');
    const item = expectCompactResource(body);
    expect(String(item.encrypted_content)).toMatch(/^gw1:/);
    expect(gatewaySummary(item)).toBe(chatOnly.upstream.reply);

    const next = await post(chatOnly, '/responses', {
      model: 'acme/chat-large',
      input: [item, 'x'].slice(0, 1),
    });
    expect(next.status).toBe(200);
    expect(chatOnly.upstream.received.at(-1)?.body.messages).toEqual([
      { role: 'user', content: summaryText(chatOnly.upstream.reply) },
    ]);
  });

  it('compacts over an Anthropic provider, read back by /v1/responses', async () => {
    const { status, body } = await post(claude, '/responses/compact', {
      model: 'acme/claude-x',
      input: CONVERSATION,
    });
    expect(status).toBe(200);
    const sent = anthropic.received.at(-1);
    expect(sent?.path).toBe('/v1/messages');
    expect(JSON.stringify(sent?.body.system)).toContain('You compact conversations.');
    const item = expectCompactResource(body);
    expect(gatewaySummary(item)).toBe(anthropic.reply);

    const output = Array.isArray(body.output) ? body.output : [];
    const next = await post(claude, '/responses', {
      model: 'acme/claude-x',
      input: [...output, { role: 'user', content: 'Go on.' }],
    });
    expect(next.status).toBe(200);
    const resent = JSON.stringify(anthropic.received.at(-1)?.body.messages);
    expect(resent).toContain(JSON.stringify(summaryText(anthropic.reply)).slice(1, -1));
    expect(resent).toContain('Add a booking form.');
  });

  it('compacts over a Gemini provider, read back by /v1/responses', async () => {
    const { status, body } = await post(gem, '/responses/compact', {
      model: 'google/gem-x',
      input: CONVERSATION,
    });
    expect(status).toBe(200);
    const sent = gemini.received.at(-1);
    expect(sent?.path).toContain('gem-x-001:generateContent');
    expect(JSON.stringify(sent?.body)).toContain('You compact conversations.');
    const item = expectCompactResource(body);
    expect(gatewaySummary(item)).toBe(gemini.reply);

    const next = await post(gem, '/responses', { model: 'google/gem-x', input: [item] });
    expect(next.status).toBe(200);
    expect(JSON.stringify(gemini.received.at(-1)?.body.contents)).toContain(
      JSON.stringify(summaryText(gemini.reply)).slice(1, -1),
    );
  });
});
