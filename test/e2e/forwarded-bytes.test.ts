import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

/**
 * A member the gateway forwards unchanged (here the 1 MiB `messages`) goes upstream as the bytes the client
 * sent (json/source-bytes.ts); any step that changes the request (redaction here) sends its own copy.
 */
let env: TestGateway;
beforeAll(async () => {
  env = await startTestGateway();
});
afterAll(async () => env.stop());

// Escapes and spacing a re-serialisation would have rewritten: the bytes prove which path was taken.
const PAGE = 'Caf\\u00e9 \\/ \\"quoted\\" mail ada@example.com. ';
const bigMessages = () =>
  `[ {"role":"system","content":"Be brief."},\n  {"role" : "user", "content":"${PAGE.repeat(22_000)}"} ]`;

async function send(extra: string): Promise<Response> {
  return fetch(`${env.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
    body: `{"model":"acme/chat-large","messages":${bigMessages()},"max_tokens":16${extra}}`,
  });
}

describe('request members forwarded as the client sent them', () => {
  it('sends an unchanged 1 MiB messages array upstream byte for byte, with the upstream model put in', async () => {
    const response = await send('');
    expect(response.status).toBe(200);
    const received = env.upstream.received.at(-1);
    expect(received?.text.length).toBeGreaterThan(1_000_000);
    expect(received?.text).toContain(`"messages":${bigMessages()}`);
    expect(received?.body.model).toBe('chat-large-2026');
    expect(received?.body.max_tokens ?? received?.body.max_completion_tokens).toBe(16);
  });

  it('never forwards the original bytes of a request that redaction changed', async () => {
    const response = await send(',"gateway":{"redact":{"email":true}}');
    expect(response.status).toBe(200);
    const received = env.upstream.received.at(-1);
    expect(received?.text).not.toContain('ada@example.com');
    expect(JSON.stringify(received?.body)).toContain('Café / \\"quoted\\"');
    expect(received?.body).not.toHaveProperty('gateway');
  });

  it('never forwards the bytes of a member JSON.parse dropped for a later one with an escaped name', async () => {
    const response = await fetch(`${env.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: `{"model":"acme/chat-large","messages":${bigMessages()},"m\\u0065ssages":[{"role":"user","content":"${'clean '.repeat(300)}"}],"max_tokens":16}`,
    });
    expect(response.status).toBe(200);
    const received = env.upstream.received.at(-1);
    expect(received?.text).not.toContain('ada@example.com');
    expect(received?.body.messages).toEqual([{ role: 'user', content: 'clean '.repeat(300) }]);
  });
});
