import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { openStore } from '../../src/store/open-store.js';
import { startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import { startTestGateway, TEST_KEY, testConfig } from '../../src/test-support/start-test-gateway.js';

const streamRequest = (baseURL: string) =>
  fetch(`${baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'acme/chat-large',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    }),
  });

/** Reads the first chunk, then runs `during`, then reads the rest; returns the whole text. */
async function readStream(response: Response, during: () => void): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) throw new Error('no body');
  const decoder = new TextDecoder();
  const first = await reader.read();
  let text = decoder.decode(first.value);
  during();
  for (let next = await reader.read(); !next.done; next = await reader.read())
    text += decoder.decode(next.value);
  return text;
}

async function recordStatus(databaseUrl: string, genId: string): Promise<string | undefined> {
  const store = await openStore(databaseUrl);
  try {
    return (await store.getRecord(genId, 'acme'))?.status;
  } finally {
    await store.close();
  }
}

describe('graceful shutdown', () => {
  it('stop() finishes in-flight streams, refuses new connections and flushes records', async () => {
    const env = await startTestGateway();
    env.upstream.faults.push({ kind: 'slow-stream', delayMs: 40 });
    const response = await streamRequest(env.baseURL);
    const genId = response.headers.get('x-generation-id') ?? '';
    let stopped: Promise<unknown> = Promise.resolve();
    const text = await readStream(response, () => {
      stopped = env.gateway.stop();
    });
    expect(text).toContain('data: [DONE]');
    expect(text).toContain('"usage"');
    await stopped;
    await expect(streamRequest(env.baseURL)).rejects.toThrow();
    expect(await recordStatus(env.databaseUrl, genId)).toBe('success');
    await env.upstream.close();
  });
});

describe('SIGTERM on the real process', () => {
  let child: ChildProcess | undefined;
  afterEach(() => child?.kill('SIGKILL'));

  it('exits 0 after the in-flight stream ended, with its record written', async () => {
    const upstream = await startFakeOpenAIUpstream();
    const dir = mkdtempSync(join(tmpdir(), 'gateway-sigterm-'));
    const configPath = join(dir, 'gateway.yaml');
    writeFileSync(configPath, stringify(testConfig(upstream.url)));
    const databaseUrl = `sqlite:${join(dir, 'gateway.db')}`;
    child = spawn(process.execPath, ['dist/main.js'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        GATEWAY_CONFIG: configPath,
        DATABASE_URL: databaseUrl,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const running = child;
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      running.stdout?.on('data', (data: Buffer) => {
        out += data.toString();
        const match = /listening on (http:\/\/\S+\/v1)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      running.once('exit', (code) => reject(new Error(`gateway exited early with ${code}: ${out}`)));
    });
    const exited = new Promise<number | null>((resolve) => running.once('exit', (code) => resolve(code)));
    upstream.faults.push({ kind: 'slow-stream', delayMs: 40 });
    const response = await streamRequest(url);
    const genId = response.headers.get('x-generation-id') ?? '';
    const text = await readStream(response, () => running.kill('SIGTERM'));
    expect(text).toContain('data: [DONE]');
    expect(await exited).toBe(0);
    expect(await recordStatus(databaseUrl, genId)).toBe('success');
    await upstream.close();
  });
});
