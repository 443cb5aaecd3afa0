import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningGateway, startGateway } from '../../src/app/start-gateway.js';
import { parseConfig } from '../../src/config/load-config.js';
import { type FakeModelServer, startFakeModelServer } from '../../src/test-support/fake-model-server.js';
import { TEST_KEY } from '../../src/test-support/start-test-gateway.js';

/**
 * Discovery: the Ollama and vLLM presets list the models their servers have (Ollama's /api/tags, vLLM's
 * /v1/models) and serve them as `<provider>/<name>`, unpriced; listings are refreshed, and a failing listing
 * keeps the last list and is logged once.
 */
interface Started {
  gateway: RunningGateway;
  logs: string[];
}

async function start(config: Record<string, unknown>, vars: Record<string, string> = {}): Promise<Started> {
  const logs: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'gateway-discovery-'));
  const gateway = await startGateway({
    config: parseConfig({ organizations: [{ id: 'acme', apiKeys: [TEST_KEY] }], ...config }, 'test'),
    databaseUrl: `sqlite:${join(dir, 'gateway.db')}`,
    port: 0,
    host: '127.0.0.1',
    vars,
    log: (line) => logs.push(line),
  });
  return { gateway, logs };
}

const auth = { authorization: `Bearer ${TEST_KEY}` };

interface ModelView {
  id: string;
  pricing: Record<string, unknown>;
  providers: { provider: string }[];
  discovered?: boolean;
  pricing_known?: boolean;
}

async function modelIds(gateway: RunningGateway): Promise<ModelView[]> {
  const response = await fetch(`${gateway.url}/v1/models`, { headers: auth });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: ModelView[] }).data;
}

async function chat(gateway: RunningGateway, model: string) {
  return fetch(`${gateway.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

/** Waits (bounded by the test's timeout) until `condition` holds. */
async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await pause(25);
}

describe('the Ollama and vLLM presets discover their models', () => {
  let ollama: FakeModelServer;
  let vllm: FakeModelServer;
  let started: Started;

  beforeAll(async () => {
    ollama = await startFakeModelServer(['llama3.2:3b', 'llama3.1:8b', 'nomic-embed-text:latest']);
    vllm = await startFakeModelServer(['Qwen/Qwen2.5-7B-Instruct']);
    started = await start(
      {},
      { OLLAMA_BASE_URL: ollama.url.replace(/\/v1$/, ''), VLLM_BASE_URL: vllm.url, VLLM_API_KEY: 'vllm-key' },
    );
  });
  afterAll(async () => {
    await started.gateway.stop();
    await ollama.close();
    await vllm.close();
  });

  it('asks each server the way it lists models (Ollama /api/tags, vLLM /v1/models with its key)', () => {
    expect(ollama.listings[0]).toEqual({ path: '/api/tags', authorization: undefined });
    expect(vllm.listings[0]).toEqual({ path: '/v1/models', authorization: 'Bearer vllm-key' });
  });

  it('lists pulled models as <provider>/<name>, priced zero and saying the price is unknown', async () => {
    const models = await modelIds(started.gateway);
    const local = models.find((model) => model.id === 'ollama/llama3.2:3b');
    expect(local).toMatchObject({
      discovered: true,
      pricing_known: false,
      providers: [{ provider: 'ollama' }],
    });
    expect(local?.pricing.input).toBe('0');
    expect(local?.pricing.output).toBe('0');
    expect(models.some((model) => model.id === 'vllm/Qwen/Qwen2.5-7B-Instruct')).toBe(true);
    expect(models.some((model) => model.id === 'ollama/nomic-embed-text:latest')).toBe(true);
  });

  it('catalog models are served by Ollama only when pulled', async () => {
    const models = await modelIds(started.gateway);
    const pulled = models.find((model) => model.id === 'meta/llama-3.1-8b-instruct');
    expect(pulled?.providers.map((p) => p.provider)).toContain('ollama');
    // llama3.3:70b is in the catalog for Ollama, but this server does not have it.
    const notPulled = models.find((model) => model.id === 'meta/llama-3.3-70b-instruct');
    expect(notPulled?.providers.map((p) => p.provider) ?? []).not.toContain('ollama');
    expect(pulled?.discovered).toBeUndefined();
  });

  it('a discovered model is served under its own name, at cost 0; a bare name finds it', async () => {
    for (const name of ['ollama/llama3.2:3b', 'llama3.2:3b']) {
      const response = await chat(started.gateway, name);
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        model: string;
        usage: { cost: number };
        choices: { message: { content: string } }[];
      };
      expect(body.model).toBe('ollama/llama3.2:3b');
      expect(body.usage.cost).toBe(0);
      expect(body.choices[0]?.message.content).toBe('Hello from llama3.2:3b');
    }
    expect(ollama.chats.at(-1)?.model).toBe('llama3.2:3b');
  });
});

describe('refresh, failure and bounds', () => {
  let server: FakeModelServer;
  let started: Started;

  beforeAll(async () => {
    server = await startFakeModelServer(['alpha']);
    started = await start({
      providers: [
        {
          id: 'local',
          api: 'openai',
          baseUrl: server.url,
          discover: true,
          discoverIntervalSeconds: 1,
          retries: 0,
        },
      ],
      discovery: { maxModels: 3 },
    });
  });
  afterAll(async () => {
    await started.gateway.stop();
    await server.close();
  });

  const listed = async (id: string) => (await modelIds(started.gateway)).some((model) => model.id === id);

  it('a model added on the server appears after the next listing', async () => {
    expect(await listed('local/alpha')).toBe(true);
    server.models = ['alpha', 'beta'];
    await until(() => listed('local/beta'));
  });

  it('a failing listing keeps the last list and is logged once, and once more when it works again', async () => {
    server.failListingsWith = 500;
    const before = server.listings.length;
    await until(() => server.listings.length >= before + 3);
    expect(await listed('local/beta')).toBe(true);
    expect((await chat(started.gateway, 'local/beta')).status).toBe(200);
    const failures = started.logs.filter((line) => line.includes('model discovery of provider local failed'));
    expect(failures).toEqual([
      'model discovery of provider local failed (/v1/models answered HTTP 500); keeping the 2 models it listed before',
    ]);
    server.failListingsWith = undefined;
    server.models = ['alpha'];
    await until(async () => !(await listed('local/beta')));
    expect(
      started.logs.some((line) => line.includes('model discovery of provider local works again (1 models)')),
    ).toBe(true);
    expect((await chat(started.gateway, 'local/beta')).status).toBe(404);
  });

  it('a listing with more than discovery.maxModels keeps the first ones and says so', async () => {
    server.models = ['m1', 'm2', 'm3', 'm4', 'm5'];
    await until(() => listed('local/m3'));
    expect(await listed('local/m4')).toBe(false);
    expect(
      started.logs.some((line) => line.includes('more models than discovery.maxModels; kept the first 3')),
    ).toBe(true);
  });

  it('a listing larger than discovery.maxResponseBytes fails (the last list stays)', async () => {
    server.padListingBytes = 5 * 1024 * 1024;
    const before = server.listings.length;
    await until(() => server.listings.length >= before + 2);
    expect(started.logs.some((line) => line.includes('the listing is larger than 4194304 bytes'))).toBe(true);
    expect(await listed('local/m3')).toBe(true);
    server.padListingBytes = undefined;
  });
});

it('a server that cannot be reached at start: the gateway starts, the provider has no models yet', async () => {
  const server = await startFakeModelServer(['later']);
  await server.close();
  const started = await start({
    providers: [{ id: 'gone', api: 'openai', baseUrl: server.url, discover: true }],
  });
  try {
    const ids = (await modelIds(started.gateway)).map((model) => model.id);
    expect(ids.some((id) => id.startsWith('gone/'))).toBe(false);
    expect(
      started.logs.filter((line) => line.includes('model discovery of provider gone failed')),
    ).toHaveLength(1);
    const response = await chat(started.gateway, 'gone/later');
    expect(response.status).toBe(404);
  } finally {
    await started.gateway.stop();
  }
});
