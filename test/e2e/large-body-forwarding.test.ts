import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

/**
 * A large member forwarded unchanged goes upstream as the client's own bytes, in pieces that are never joined
 * (json/source-bytes.ts): the upstream must still get one ordinary body with its length declared.
 */
let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway();
});
afterAll(async () => env.stop());

async function chat(messages: string): Promise<Response> {
  return fetch(`${env.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: `{"model":"acme/chat-large","messages":${messages},"max_tokens":16}`,
  });
}

describe('large request bodies reach the upstream byte for byte', () => {
  it.each([
    ['300 KB', 300_000],
    ['2 KB', 2_000],
  ])(
    'a %s message, with escapes and non-ASCII text, arrives whole with its content-length',
    async (_name, size) => {
      // Spacing and escapes a re-serialisation would change: only the client's own bytes keep them.
      const unit = 'héllo 🚀 \\"quoted\\" \\u00e9 \\n ';
      const messages = `[ {"role" : "user",  "content":"${unit.repeat(Math.ceil(size / unit.length))}"} ]`;
      const response = await chat(messages);
      expect(response.status).toBe(200);
      await response.json();
      const received = env.upstream.received.at(-1);
      expect(received?.headers['transfer-encoding']).toBeUndefined();
      expect(Number(received?.headers['content-length'])).toBe(Buffer.byteLength(received?.text ?? ''));
      expect(received?.text).toContain(`"messages":${messages},`);
      expect(received?.body.messages).toEqual(JSON.parse(messages));
      expect(received?.body.model).not.toBe('acme/chat-large');
    },
  );

  it('an upstream error quoting a large prompt is withheld, as for any prompt', async () => {
    env.upstream.faults.push({ kind: 'echo-error', status: 400 });
    const content = `Draft the Kestrel acquisition letter. ${'background '.repeat(8_000)}`;
    const response = await chat(JSON.stringify([{ role: 'user', content }]));
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(text).not.toContain('Kestrel');
    expect(text).toContain('withheld');
  });
});
