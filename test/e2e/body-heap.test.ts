import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import { useHoldingServer } from '../../src/test-support/holding-server.js';
import { configEnv, type SpawnedGateway, spawnGateway } from '../../src/test-support/spawn-gateway.js';
import { TEST_KEY, testConfig } from '../../src/test-support/start-test-gateway.js';

/**
 * Request bodies cannot exhaust the gateway's heap (a crash loses every request in flight). The gateway runs
 * as its own process with the default heap, as `npm start` starts it. Measured before these bounds, with 20
 * MiB bodies: `[{},{},…]` parses to 430 MB of heap in 5–10 s of the event loop (12 at once held the
 * process at 4.9 GB for 14 minutes), and 60 bodies of `[0,0,…]` (80 MB each) held by a slow upstream
 * killed it (heap out of memory).
 */
const MiB = 1024 * 1024;
const SIZE = 20 * MiB - 4096;
const MESSAGES = '"messages":[{"role":"user","content":"hi"}]';

/** A body of `SIZE` bytes: `prefix`, `unit` repeated, `suffix` (the last unit's separator dropped). */
function body(prefix: string, unit: string, suffix: string): Buffer {
  const units = Math.floor((SIZE - prefix.length - suffix.length) / unit.length);
  return Buffer.from(`${prefix}${unit.repeat(units).slice(0, -1)}${suffix}`);
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  json: { error?: { code: unknown; type: string; message: string } };
}

/** POSTs `bytes` (content-length declared) and reads the whole answer. */
function post(url: string, bytes: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TEST_KEY}`,
          'content-type': 'application/json',
          'content-length': bytes.length,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, json: JSON.parse(text) }),
        );
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const statuses = (answers: Answer[]) => answers.map((answer) => answer.status).sort();

let upstream: FakeUpstream;
beforeAll(async () => {
  upstream = await startFakeOpenAIUpstream();
});
afterAll(async () => upstream.close());

async function normalChatWorks(gateway: SpawnedGateway): Promise<void> {
  const answer = await post(
    `${gateway.url}/chat/completions`,
    Buffer.from(`{"model":"acme/chat-large",${MESSAGES}}`),
  );
  expect(answer.status).toBe(200);
}

describe('bodies of many tiny values (server.maxJsonValues)', () => {
  let gateway: SpawnedGateway;
  beforeAll(async () => {
    // Room for every body at once, so that each is read and refused for its values alone.
    const server = { maxBodyBytesInFlight: 17 * 20 * MiB };
    gateway = await spawnGateway(configEnv(testConfig(upstream.url, { server })));
  });
  afterAll(() => {
    gateway.child.kill('SIGKILL');
  });

  it('answers 16 at once with 413 before parsing them, and keeps serving', async () => {
    const chat = `${gateway.url}/chat/completions`;
    const crafted = [
      [chat, body('{"model":"acme/chat-large","messages":[', '{},', ']}')],
      [chat, body(`{"model":"acme/chat-large",${MESSAGES},"tools":[`, '[],', ']}')],
      [chat, body(`{"model":"acme/chat-large",${MESSAGES},"metadata":{"a":[`, '[],', ']}}')],
      [`${gateway.url}/embeddings`, body('{"model":"acme/embed-small","input":[', '[0,{}],', ']}')],
    ] as const;
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => {
        const [url, bytes] = crafted[i % crafted.length] as (typeof crafted)[number];
        return post(url, bytes);
      }),
    );
    expect(statuses(answers)).toEqual(Array(16).fill(413));
    for (const answer of answers) {
      expect(answer.json.error).toMatchObject({ code: 'BAD_REQUEST', type: 'invalid_request_error' });
      expect(answer.json.error?.message).toMatch(/more than 1000000 JSON values/);
    }
    expect(gateway.child.exitCode).toBeNull();
    await normalChatWorks(gateway);
  });

  it('takes 20 MiB of token arrays (1,996 inputs of 1,750 ids): their numbers are not counted', async () => {
    const tokens = body('{"model":"acme/embed-small","input":[', `[${'31415,'.repeat(1_749)}31415],`, ']}');
    const answer = await post(`${gateway.url}/embeddings`, tokens);
    expect(answer.status).toBe(200);
    expect(upstream.received.at(-1)?.body.input).toHaveLength(1_996);
  });
});

describe('bodies held at once (server.maxBodyBytesInFlight)', () => {
  const holding = useHoldingServer();
  let gateway: SpawnedGateway;
  const ROOM = 3;
  beforeAll(async () => {
    const base = testConfig(upstream.url);
    const config = {
      ...base,
      providers: [
        ...base.providers,
        { id: 'slow', api: 'openai', baseUrl: `${holding.origin}/v1`, apiKey: 'sk-slow', timeoutMs: 60_000 },
      ],
      models: [
        ...base.models,
        {
          id: 'acme/slow',
          name: 'Slow',
          api_compatibility: ['chat-completion'],
          endpoints: [{ provider: 'slow', model: 's' }],
        },
      ],
      server: { maxBodyBytesInFlight: ROOM * 20 * MiB },
    };
    gateway = await spawnGateway(configEnv(config));
  });
  afterAll(() => {
    gateway.child.kill('SIGKILL');
  });

  it('holds as many bodies as fit, refuses the others with 503 and retry-after, and takes more once they end', async () => {
    // 60 bodies of 80 MB of heap each would be 4.8 GB, more than a default heap (at most 4 GiB on Node 20).
    const zeros = body(`{"model":"acme/slow",${MESSAGES},"x":[`, '0,', ']}');
    const answering = Array.from({ length: 60 }, () => post(`${gateway.url}/chat/completions`, zeros));
    let refused = 0;
    for (const answer of answering) void answer.then((done) => (refused += done.status === 503 ? 1 : 0));
    await until(() => refused + holding.held.length === 60, 'every body held upstream or refused');
    expect(holding.held.length).toBe(ROOM);
    expect(gateway.child.exitCode).toBeNull();
    // A small body is never counted: it is served while the room is full.
    await normalChatWorks(gateway);

    const completion = {
      id: 'c',
      object: 'chat.completion',
      created: 1,
      model: 's',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    };
    for (const res of holding.held.splice(0)) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
    }
    const answers = await Promise.all(answering);
    expect(statuses(answers)).toEqual([...Array(ROOM).fill(200), ...Array(60 - ROOM).fill(503)]);
    for (const answer of answers.filter((done) => done.status === 503)) {
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.json.error).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', type: 'service_unavailable' });
      expect(answer.json.error?.message).toMatch(/server\.maxBodyBytesInFlight/);
    }
    // The room is given back when the answers end: a large body is taken again.
    const text = body('{"model":"acme/chat-large","messages":[{"role":"user","content":"', 'a', '"}]}');
    expect((await post(`${gateway.url}/chat/completions`, text)).status).toBe(200);
  });
});
