import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeOpenAIUpstream } from '../../src/test-support/fake-openai-upstream.js';
import { recordOf } from '../../src/test-support/record-of.js';
import {
  OTHER_ORG_KEY,
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;
let secondary: FakeUpstream;
let client: OpenAI;

beforeAll(async () => {
  secondary = await startFakeOpenAIUpstream();
  secondary.reply = 'Second provider here.';
  env = await startTestGateway((url) => {
    // 4 KiB: room for every conversation below but the one that tests the bound.
    const config = testConfig(url, { server: { conversationState: { enabled: true, maxBytes: 4096 } } });
    const pricing = { input: '0.000002', output: '0.000008' };
    return {
      ...config,
      providers: [
        // retries: 0: a fault of the primary fails over at once (retries are tested apart).
        { id: 'primary', api: 'openai', baseUrl: url, apiKey: 'k1', retries: 0 },
        // Only chat: turns it serves go through the Responses-over-chat translation.
        {
          id: 'secondary',
          api: 'openai',
          baseUrl: secondary.url,
          apiKey: 'k2',
          zdr: true,
          supports: ['chat'],
        },
      ],
      models: [
        {
          id: 'acme/duo',
          endpoints: [
            { provider: 'primary', model: 'duo-p', pricing },
            { provider: 'secondary', model: 'duo-s', pricing },
          ],
        },
      ],
    };
  });
  client = new OpenAI({ apiKey: TEST_KEY, baseURL: env.baseURL, maxRetries: 0 });
});
afterAll(async () => {
  await env.stop();
  await secondary.close();
});

type Params = Parameters<OpenAI['responses']['create']>[0];
const create = (params: Record<string, unknown>) =>
  client.responses.create({ model: 'acme/duo', ...params } as Params & { stream?: false });

describe('previous_response_id against the gateway store', () => {
  it('continues a conversation on another provider than the one that served the first turn', async () => {
    const first = await create({ input: 'My name is Ada.', gateway: { order: ['primary'] } });
    expect(env.upstream.received.at(-1)?.path).toBe('/v1/responses');
    const second = await create({
      input: 'What is my name?',
      previous_response_id: first.id,
      gateway: { order: ['secondary'] },
    });
    expect(second.previous_response_id).toBe(first.id);
    const sent = secondary.received.at(-1)?.body.messages as { role: string; content: unknown }[];
    expect(sent.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(sent)).toContain('My name is Ada.');
    expect(JSON.stringify(sent)).toContain('Hello from the fake upstream!');
    expect(secondary.received.at(-1)?.body).not.toHaveProperty('previous_response_id');
  });

  it('works after a fallback, and across three turns', async () => {
    env.upstream.faults.push({ kind: 'status', status: 500 });
    const first = await create({ input: 'Turn one.', gateway: { order: ['primary'] } });
    const second = await create({
      input: 'Turn two.',
      previous_response_id: first.id,
      gateway: { order: ['primary'] },
    });
    const third = await create({
      input: 'Turn three.',
      previous_response_id: second.id,
      gateway: { order: ['primary'] },
    });
    expect(third.status).toBe('completed');
    const input = JSON.stringify(env.upstream.received.at(-1)?.body.input);
    expect(input).toContain('Turn one.');
    expect(input).toContain('Second provider here.');
    expect(input).toContain('Turn two.');
    expect(input).toContain('Turn three.');
  });

  it('continues from a streamed turn', async () => {
    const stream = client.responses.stream({ model: 'acme/duo', input: 'Streamed turn.' });
    const first = await stream.finalResponse();
    const second = await create({ input: 'And now?', previous_response_id: first.id });
    expect(second.status).toBe('completed');
    const sent = JSON.stringify(
      env.upstream.received.at(-1)?.body.input ?? secondary.received.at(-1)?.body.messages,
    );
    expect(sent).toContain('Streamed turn.');
  });

  /**
   * Optimizations shorten what one turn sends, not the conversation: a turn that dropped earlier turns (its
   * question stood on its own) or their images must not lose them for the turns after it. Redaction, which
   * is one-way, stays in what is kept.
   */
  for (const streamed of [false, true]) {
    it(`keeps the whole conversation after a compressed turn${streamed ? ' (streamed)' : ''}`, async () => {
      const schema =
        'Here is my Postgres schema: CREATE TABLE customers (id serial primary key, region text); ' +
        'my mail is ada@example.com';
      // The primary provider throughout, so that its last request is the turn's.
      const first = await create({ input: schema, gateway: { order: ['primary'], redact: { email: true } } });
      const aside = {
        model: 'acme/duo',
        input: [
          { role: 'user', content: 'Unrelated: what is a good name for a golden retriever puppy?' },
          {
            role: 'user',
            content: [{ type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=' }],
          },
          { role: 'user', content: 'New topic: write a haiku about autumn.' },
        ],
        previous_response_id: first.id,
        gateway: { order: ['primary'], chatHistoryCompression: { enabled: true }, mediaOptimization: true },
      };
      const second = streamed
        ? await client.responses.stream(aside as Parameters<OpenAI['responses']['stream']>[0]).finalResponse()
        : await create(aside);
      const compressed = JSON.stringify(env.upstream.received.at(-1)?.body.input);
      expect(compressed).not.toContain('CREATE TABLE customers');
      await create({
        input: 'Write a SQL query on customers by region.',
        previous_response_id: second.id,
        gateway: { order: ['primary'] },
      });
      const sent = JSON.stringify(env.upstream.received.at(-1)?.body.input);
      expect(sent).toContain('CREATE TABLE customers');
      expect(sent).toContain('golden retriever');
      expect(sent).toContain('data:image/png;base64,iVBORw0KGgo=');
      expect(sent).not.toContain('ada@example.com');
      expect(sent).toContain('my mail is ****@e****e.com');
    });
  }

  it('store: false keeps nothing', async () => {
    const first = await create({ input: 'Forget me.', store: false, gateway: { order: ['primary'] } });
    const error = await create({ input: 'Again?', previous_response_id: first.id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('previous_response_id');
  });

  it('gateway.zdr keeps nothing', async () => {
    const first = await create({ input: 'Zero retention.', gateway: { zdr: true } });
    const error = await create({ input: 'Again?', previous_response_id: first.id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  });

  it('a conversation larger than maxBytes is answered but not kept, so it cannot grow without end', async () => {
    const params = { model: 'acme/duo', input: 'x'.repeat(5_000), gateway: { order: ['primary'] } };
    const { data: first, response } = await client.responses
      .create(params as Params & { stream?: false })
      .withResponse();
    expect(first.status).toBe('completed');
    const record = await recordOf(env.baseURL, response.headers.get('x-generation-id') ?? '');
    expect(record.warnings.join(' ')).toContain('larger than server.conversationState.maxBytes (4096)');
    const error = await create({ input: 'Again?', previous_response_id: first.id }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('previous_response_id');
  });

  it('another organization cannot continue it', async () => {
    const first = await create({ input: 'Private.' });
    const other = new OpenAI({ apiKey: OTHER_ORG_KEY, baseURL: env.baseURL, maxRetries: 0 });
    const error = await other.responses
      .create({ model: 'acme/duo', input: 'Peek', previous_response_id: first.id })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  });
});

describe('without conversation state (the default)', () => {
  it('previous_response_id is refused with an explanation', async () => {
    const plain = await startTestGateway();
    const plainClient = new OpenAI({ apiKey: TEST_KEY, baseURL: plain.baseURL, maxRetries: 0 });
    const first = await plainClient.responses.create({ model: 'acme/chat-large', input: 'hi' });
    const error = await plainClient.responses
      .create({ model: 'acme/chat-large', input: 'again', previous_response_id: first.id })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toContain('conversationState');
    await plain.stop();
  });
});
