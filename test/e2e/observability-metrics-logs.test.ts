import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isRecord, tryParseJson } from '../../src/json/json.js';
import { createLogger } from '../../src/observability/logger.js';
import {
  OTHER_ORG_KEY,
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

const METRICS_TOKEN = 'metrics-token-0123456789';
const SECRET_PROMPT = 'prompt-words-nobody-may-log-17';
// $2 / $8 per million tokens; the fake upstream reports 12 prompt and 7 completion tokens.
const CHAT_COST_NANO = 12 * 2000 + 7 * 8000;

let env: TestGateway;
const lines: string[] = [];
const entries = () => lines.map((line) => tryParseJson(line)).filter(isRecord);

function config(upstreamUrl: string) {
  const base = testConfig(upstreamUrl, { metrics: { token: METRICS_TOKEN } });
  return {
    ...base,
    organizations: [
      { id: 'acme', apiKeys: [TEST_KEY] },
      { id: 'other', apiKeys: [OTHER_ORG_KEY], rateLimit: { requestsPerMinute: 1 } },
    ],
  };
}

async function scrape(): Promise<string> {
  const response = await fetch(`${env.gateway.url}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

/** The value of one series, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

beforeAll(async () => {
  const logger = createLogger({
    level: 'info',
    format: 'json',
    terminal: false,
    destination: { write: (line: string) => void lines.push(line) },
  });
  env = await startTestGateway(config, { logger });
  const client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
  await client.chat.completions.create({
    model: 'acme/chat-large',
    messages: [{ role: 'user', content: SECRET_PROMPT }],
  });
  const stream = await client.chat.completions.create({
    model: 'acme/chat-large',
    messages: [{ role: 'user', content: SECRET_PROMPT }],
    stream: true,
    stream_options: { include_usage: true },
  });
  for await (const _chunk of stream);
  // The other organization has 1 request per minute: its second request is refused by the rate limit.
  const other = new OpenAI({ apiKey: OTHER_ORG_KEY, baseURL: env.baseURL, maxRetries: 0 });
  await other.embeddings.create({ model: 'acme/embed-small', input: 'x' });
  await expect(other.embeddings.create({ model: 'acme/embed-small', input: 'x' })).rejects.toThrow();
}, 30_000);
afterAll(async () => env.stop());

describe('GET /metrics', () => {
  it('is guarded by metrics.token', async () => {
    expect((await fetch(`${env.gateway.url}/metrics`)).status).toBe(401);
    const wrong = await fetch(`${env.gateway.url}/metrics`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
  });

  it('counts requests, tokens, cost, attempts and refusals with bounded labels', async () => {
    const text = await scrape();
    const chat = 'endpoint="/v1/chat/completions",model="acme/chat-large",provider="fake-cloud"';
    expect(sample(text, `gateway_requests_total{${chat},status_class="2xx"}`)).toBe(2);
    expect(sample(text, 'gateway_tokens_total{model="acme/chat-large",direction="input"}')).toBe(24);
    expect(sample(text, 'gateway_tokens_total{model="acme/chat-large",direction="output"}')).toBe(14);
    expect(sample(text, 'gateway_cost_nano_usd_total{model="acme/chat-large"}')).toBe(2 * CHAT_COST_NANO);
    expect(sample(text, 'gateway_upstream_attempts_total{provider="fake-cloud",outcome="success"}')).toBe(3);
    expect(sample(text, 'gateway_limit_refusals_total{kind="rate"}')).toBe(1);
    expect(sample(text, 'gateway_limit_refusals_total{kind="org_cap"}')).toBe(0);
    const refused = 'endpoint="/v1/embeddings",model="",provider="",status_class="4xx"';
    expect(sample(text, `gateway_requests_total{${refused}}`)).toBe(1);
    const histogram =
      'gateway_request_duration_seconds_count{endpoint="/v1/chat/completions",model="acme/chat-large"}';
    expect(sample(text, histogram)).toBe(2);
    expect(
      sample(
        text,
        'gateway_time_to_first_token_seconds_count{endpoint="/v1/chat/completions",model="acme/chat-large"}',
      ),
    ).toBe(2);
    expect(sample(text, 'gateway_active_streams')).toBe(0);
    // Never key ids, generation ids or the organization (organizationLabel is off).
    expect(text).not.toMatch(/gen_[0-9a-f]{8}-|organization=|"acme"/);
    const keyIds = entries().flatMap((entry) => (typeof entry.keyId === 'string' ? [entry.keyId] : []));
    expect(keyIds.length).toBeGreaterThan(0);
    for (const keyId of keyIds) expect(text).not.toContain(keyId);
  });

  it('exports the GenAI convention duplicates, record and dependency figures and Node defaults', async () => {
    const text = await scrape();
    const genAi =
      'gen_ai_operation_name="chat",gen_ai_provider_name="fake-cloud",gen_ai_request_model="acme/chat-large"';
    expect(sample(text, `gen_ai_client_token_usage_sum{${genAi},gen_ai_token_type="input"}`)).toBe(24);
    expect(sample(text, `gen_ai_server_time_to_first_token_seconds_count{${genAi}}`)).toBe(2);
    expect(sample(text, `gen_ai_client_operation_duration_seconds_count{${genAi},error_type=""}`)).toBe(2);
    expect(sample(text, 'gateway_dependency_up{dependency="store"}')).toBe(1);
    expect(sample(text, 'gateway_dependency_up{dependency="journal"}')).toBe(1);
    expect(sample(text, 'gateway_records_pending')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'gateway_records_written_total')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
  });
});

describe('access log', () => {
  it('writes one JSON line per request with the record figures, never the prompt', () => {
    const access = entries().filter((entry) => entry.msg === 'request');
    const chat = access.filter((entry) => entry.endpoint === '/v1/chat/completions');
    expect(chat).toHaveLength(2);
    for (const entry of chat) {
      expect(entry).toMatchObject({
        level: 'info',
        method: 'POST',
        status: 200,
        org: 'acme',
        model: 'acme/chat-large',
        provider: 'fake-cloud',
        outcome: 'success',
        inputTokens: 12,
        outputTokens: 7,
        costNanoUsd: CHAT_COST_NANO,
        attempts: 1,
      });
      expect(entry.requestId).toMatch(/^req_/);
      expect(entry.genId).toMatch(/^gen_/);
      expect(entry.keyId).toEqual(expect.any(String));
      expect(entry.durationMs).toEqual(expect.any(Number));
      expect(entry.ttftMs).toEqual(expect.any(Number));
      expect(typeof entry.time === 'string' && !Number.isNaN(Date.parse(entry.time))).toBe(true);
    }
    const refused = access.find((entry) => entry.status === 429);
    expect(refused).toMatchObject({ org: 'other', endpoint: '/v1/embeddings' });
    expect(lines.join('\n')).not.toContain(SECRET_PROMPT);
  });

  it('routes operator messages (outages, failures) through the same logger as warn lines', () => {
    env.gateway.deps.log('redis is unavailable (test)');
    expect(entries().at(-1)).toMatchObject({ level: 'warn', msg: 'redis is unavailable (test)' });
  });
});

describe('failure log lines', () => {
  const SECRET_TERM = `Project-Falcon-${'x'.repeat(30_000)}`;
  const chat = (body: Record<string, unknown>) =>
    fetch(`${env.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'acme/chat-large',
        messages: [{ role: 'user', content: 'hi' }],
        ...body,
      }),
    });

  // bug: a 30,000-character redact term was a 500, and its warn line quoted the term (V8's regex error)
  it('answers a redact term too long with 400 INVALID_GATEWAY_SETTINGS and logs none of it', async () => {
    const response = await chat({ gateway: { redact: { custom: [SECRET_TERM] } } });
    expect(response.status).toBe(400);
    expect((await response.json()) as unknown).toMatchObject({
      error: { code: 'INVALID_GATEWAY_SETTINGS', param: 'gateway.redact.custom' },
    });
    expect(lines.filter((line) => line.includes('Project-Falcon'))).toEqual([]);
  });

  it('logs an internal error by name and stack frames, never its message, which may quote the request', async () => {
    const quoting = vi.spyOn(env.gateway.deps.catalog, 'get').mockImplementation((id) => {
      throw new SyntaxError(`Invalid regular expression: /${id}/`);
    });
    try {
      expect((await chat({ model: 'Project-Falcon-model' })).status).toBe(500);
    } finally {
      quoting.mockRestore();
    }
    const failed = entries().filter((entry) => String(entry.msg).includes('failed: SyntaxError'));
    expect(failed).toEqual([
      expect.objectContaining({ level: 'warn', msg: expect.stringMatching(/message withheld; at /) }),
    ]);
    expect(lines.filter((line) => line.includes('Project-Falcon'))).toEqual([]);
  });
});

describe('metrics.enabled: false', () => {
  it('answers /metrics with 404', async () => {
    const off = await startTestGateway((url) => testConfig(url, { metrics: { enabled: false } }));
    try {
      expect((await fetch(`${off.gateway.url}/metrics`)).status).toBe(404);
      expect(off.gateway.deps.metrics).toBeUndefined();
    } finally {
      await off.stop();
    }
  });
});
