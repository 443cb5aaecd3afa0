import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, TEST_KEY, type TestGateway } from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  env = await startTestGateway();
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => env.stop());

const SECRET_TEXT =
  'Mail christian@gmail.com, card 4485 2750 1234 5678 (invalid look-alike 4485 2750 1234 5679), ' +
  'key sk-proj-abcdefghijklmnopqrstuvwxyz123456, about Project Falcon.';
const ORIGINALS = [
  'christian@gmail.com',
  '4485 2750 1234 5678',
  'sk-proj-abcdefghijklmnopqrstuvwxyz123456',
  'Project Falcon',
];
const redact = { email: true, credit_card: true, token: true, custom: ['project falcon'] };

function lastReceived(): string {
  return JSON.stringify(env.upstream.received.at(-1)?.body);
}

function expectRedacted(sent: string): void {
  for (const original of ORIGINALS) expect(sent).not.toContain(original);
  expect(sent).toContain('c****n@g****l.com');
  expect(sent).toContain('44** **** **** ***8');
  // Luhn-invalid: not a card, stays as it is.
  expect(sent).toContain('4485 2750 1234 5679');
  expect(sent).toContain('****');
}

describe('redaction before anything leaves the gateway', () => {
  it('chat: every message, tool call arguments and tool results', async () => {
    await client.chat.completions.create({
      model: 'acme/chat-large',
      messages: [
        { role: 'system', content: SECRET_TEXT },
        { role: 'user', content: [{ type: 'text', text: SECRET_TEXT }] },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'c1',
              type: 'function',
              function: { name: 'lookup', arguments: JSON.stringify({ q: SECRET_TEXT }) },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: SECRET_TEXT },
        { role: 'user', content: 'Summarise.' },
      ],
      // @ts-expect-error gateway is our extension
      gateway: { redact },
    });
    expectRedacted(lastReceived());
  });

  it('chat streamed', async () => {
    // A variable, not a literal: the client's types do not know our `gateway` member.
    const body = {
      model: 'acme/chat-large',
      stream: true as const,
      messages: [{ role: 'user' as const, content: SECRET_TEXT }],
      gateway: { redact },
    };
    const stream = await client.chat.completions.create(body);
    for await (const _chunk of stream) {
      // drain
    }
    expectRedacted(lastReceived());
  });

  it('responses: input items and instructions', async () => {
    await client.responses.create({
      model: 'acme/chat-large',
      instructions: SECRET_TEXT,
      input: [
        { role: 'user', content: [{ type: 'input_text', text: SECRET_TEXT }] },
        {
          type: 'function_call',
          call_id: 'c1',
          name: 'lookup',
          arguments: JSON.stringify({ q: SECRET_TEXT }),
        },
        { type: 'function_call_output', call_id: 'c1', output: SECRET_TEXT },
      ],
      // @ts-expect-error gateway is our extension
      gateway: { redact },
    });
    expectRedacted(lastReceived());
  });

  it('the Messages ingress', async () => {
    const response = await fetch(`${env.baseURL}/messages`, {
      method: 'POST',
      headers: {
        'x-api-key': TEST_KEY,
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify({
        model: 'acme/chat-large',
        max_tokens: 100,
        system: SECRET_TEXT,
        messages: [{ role: 'user', content: SECRET_TEXT }],
        gateway: { redact },
      }),
    });
    expect(response.status).toBe(200);
    expectRedacted(lastReceived());
  });

  it('without redact, text goes through unchanged', async () => {
    await client.chat.completions.create({
      model: 'acme/chat-large',
      messages: [{ role: 'user', content: SECRET_TEXT }],
    });
    expect(lastReceived()).toContain('christian@gmail.com');
  });
});
