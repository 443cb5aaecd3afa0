import { createServer } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoopbackServer, listenLoopback } from '../../src/test-support/listen-loopback.js';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

/**
 * Embeddings the provider already wrote as the client asked (floats for floats) reach the client as the
 * provider's own bytes: `data` is never serialised again (1,536 numbers take about 160 µs). Numbers written in
 * forms JSON.stringify would change (`1.0E-3`, `-0.50`) prove which path was taken.
 */
const DIMENSIONS = 1536;
const numberText = (i: number) => (i % 2 === 0 ? `${(i % 7) + 1}.0E-3` : `-0.${(i % 9) + 1}0`);
const vectorText = `[${Array.from({ length: DIMENSIONS }, (_, i) => numberText(i)).join(',')}]`;
const expectedVector = Array.from({ length: DIMENSIONS }, (_, i) => Number(numberText(i)));

let extraMember = false;
let provider: LoopbackServer;
let env: TestGateway;
beforeAll(async () => {
  provider = await listenLoopback(
    createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (part: Buffer) => parts.push(part));
      req.on('end', () => {
        const input = JSON.parse(Buffer.concat(parts).toString()).input;
        const count = Array.isArray(input) ? input.length : 1;
        const entry = (index: number) =>
          `{"object":"embedding","index":${index},"embedding":${vectorText}${extraMember ? ',"extra":1' : ''}}`;
        const data = Array.from({ length: count }, (_, index) => entry(index)).join(',');
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          `{"object":"list","data":[${data}],"model":"embed-small-1","usage":{"prompt_tokens":5,"total_tokens":5}}`,
        );
      });
    }),
  );
  env = await startTestGateway(() => testConfig(`${provider.origin}/v1`));
});
afterAll(async () => {
  await env.stop();
  await provider.close();
});

async function embed(body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${env.baseURL}/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'acme/embed-small', input: 'hello', ...body }),
  });
  expect(response.status).toBe(200);
  return response.text();
}

describe('embeddings passed on as the provider wrote them', () => {
  it('writes the vectors in the provider’s own bytes, with our model, usage and cost', async () => {
    extraMember = false;
    const text = await embed({ encoding_format: 'float' });
    expect(text).toContain(`"embedding":${vectorText}`);
    const answer = JSON.parse(text);
    expect(answer.model).toBe('acme/embed-small');
    expect(answer.usage.prompt_tokens).toBe(5);
    expect(answer.usage.cost).toBeGreaterThan(0);
    expect(answer.data[0].embedding).toEqual(expectedVector);
  });

  it('writes a large answer (its vectors a piece of their own) with the right length', async () => {
    extraMember = false;
    const text = await embed({
      encoding_format: 'float',
      input: Array.from({ length: 40 }, (_, i) => `text ${i}`),
    });
    expect(text.length).toBeGreaterThan(64 * 1024);
    const answer = JSON.parse(text);
    expect(answer.data).toHaveLength(40);
    expect(answer.data[39]).toEqual({ object: 'embedding', index: 39, embedding: expectedVector });
    expect(text).toContain(`"index":39,"embedding":${vectorText}`);
  });

  it('still serialises entries it must change: unknown members dropped, floats turned into base64', async () => {
    extraMember = true;
    const text = await embed({ encoding_format: 'float' });
    expect(text).not.toContain('"extra"');
    expect(text).not.toContain('E-3');
    expect(JSON.parse(text).data[0]).toEqual({ object: 'embedding', embedding: expectedVector, index: 0 });

    extraMember = false;
    const base64 = JSON.parse(await embed({ encoding_format: 'base64' }));
    const bytes = Buffer.from(base64.data[0].embedding, 'base64');
    const floats = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    expect(floats).toEqual(expectedVector.map(Math.fround));
  });

  it('is what the openai client reads', async () => {
    extraMember = false;
    const client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL });
    const result = await client.embeddings.create({
      model: 'acme/embed-small',
      input: 'hello',
      encoding_format: 'float',
    });
    expect(result.data[0]?.embedding).toEqual(expectedVector);
    expect(result.model).toBe('acme/embed-small');
  });
});
