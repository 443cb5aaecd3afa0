import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startTestGateway,
  TEST_KEY,
  type TestGateway,
  testConfig,
} from '../../src/test-support/start-test-gateway.js';

let env: TestGateway;

beforeAll(async () => {
  env = await startTestGateway((url) => testConfig(url, { server: { maxBodyBytes: 4096 } }));
});
afterAll(async () => env.stop());

interface Case {
  name: string;
  method?: string;
  path: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  status: number;
  code: string | null;
  param?: string;
}

const chat = (extra: Record<string, unknown>) =>
  JSON.stringify({ model: 'acme/chat-large', messages: [{ role: 'user', content: 'hi' }], ...extra });

const cases: Case[] = [
  { name: 'malformed JSON', path: '/chat/completions', body: '{"model": ', status: 400, code: 'BAD_REQUEST' },
  { name: 'empty body', path: '/chat/completions', body: '', status: 400, code: 'BAD_REQUEST' },
  { name: 'JSON array body', path: '/chat/completions', body: '[1,2]', status: 400, code: 'BAD_REQUEST' },
  {
    name: 'invalid UTF-8',
    path: '/chat/completions',
    body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'non-finite number',
    path: '/chat/completions',
    body: chat({}).replace('"model"', '"temperature": 1e999, "model"'),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a number of 400 digits (too large for a double, with no exponent)',
    path: '/chat/completions',
    body: chat({}).replace('"model"', `"seed": 1${'0'.repeat(400)}, "model"`),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a number of 310 digits before a two-digit exponent, in a metadata member',
    path: '/chat/completions',
    body: chat({}).replace('"model"', `"metadata": {"n": ${'9'.repeat(310)}e9}, "model"`),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'a number of 400 digits in an array of numbers the gateway passes on',
    path: '/chat/completions',
    body: chat({}).replace('"model"', `"x": [${'1,'.repeat(40)}1${'0'.repeat(400)}], "model"`),
    status: 400,
    code: 'BAD_REQUEST',
  },
  {
    name: 'missing messages',
    path: '/chat/completions',
    body: '{"model":"acme/chat-large"}',
    status: 400,
    code: 'BAD_REQUEST',
    param: 'messages',
  },
  {
    name: 'messages not an array',
    path: '/chat/completions',
    body: chat({ messages: 'hi' }),
    status: 400,
    code: 'BAD_REQUEST',
    param: 'messages',
  },
  {
    name: 'bad role',
    path: '/chat/completions',
    body: chat({ messages: [{ role: 'robot', content: 'x' }] }),
    status: 400,
    code: 'BAD_REQUEST',
    param: 'messages.0.role',
  },
  {
    name: 'missing content',
    path: '/chat/completions',
    body: chat({ messages: [{ role: 'user' }] }),
    status: 400,
    code: 'BAD_REQUEST',
    param: 'messages.0.content',
  },
  {
    name: 'model mistyped',
    path: '/chat/completions',
    body: chat({ model: 42 }),
    status: 400,
    code: 'BAD_REQUEST',
    param: 'model',
  },
  {
    name: 'model missing',
    path: '/chat/completions',
    body: JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }),
    status: 400,
    code: 'BAD_REQUEST',
    param: 'model',
  },
  {
    name: 'stream mistyped',
    path: '/chat/completions',
    body: chat({ stream: 'yes' }),
    status: 400,
    code: 'BAD_REQUEST',
    param: 'stream',
  },
  {
    name: 'max_tokens negative',
    path: '/chat/completions',
    body: chat({ max_tokens: -1 }),
    status: 400,
    code: 'BAD_REQUEST',
    param: 'max_tokens',
  },
  {
    name: 'unknown model',
    path: '/chat/completions',
    body: chat({ model: 'acme/unknown' }),
    status: 404,
    code: 'MODEL_NOT_FOUND',
  },
  {
    name: 'embeddings model on chat',
    path: '/chat/completions',
    body: chat({ model: 'acme/embed-small' }),
    status: 404,
    code: 'MODEL_NOT_FOUND',
  },
  {
    name: 'unknown gateway member',
    path: '/chat/completions',
    body: chat({ gateway: { fast: true } }),
    status: 400,
    code: 'INVALID_GATEWAY_SETTINGS',
    param: 'gateway.fast',
  },
  {
    name: 'only names unknown provider',
    path: '/chat/completions',
    body: chat({ gateway: { only: ['nowhere'] } }),
    status: 400,
    code: 'INVALID_GATEWAY_SETTINGS',
    param: 'gateway.only',
  },
  {
    name: 'zdr leaves nothing',
    path: '/chat/completions',
    body: chat({ gateway: { zdr: true } }),
    status: 400,
    code: 'INVALID_GATEWAY_SETTINGS',
    param: 'gateway.zdr',
  },
  {
    name: 'responses without input',
    path: '/responses',
    body: '{"model":"acme/chat-large"}',
    status: 400,
    code: 'BAD_REQUEST',
    param: 'input',
  },
  {
    name: 'responses bad gateway',
    path: '/responses',
    body: JSON.stringify({
      model: 'acme/chat-large',
      input: 'x',
      gateway: { toolOptimization: { acceptScore: 7 } },
    }),
    status: 400,
    code: 'INVALID_GATEWAY_SETTINGS',
    param: 'gateway.toolOptimization.acceptScore',
  },
  {
    name: 'embeddings without input',
    path: '/embeddings',
    body: '{"model":"acme/embed-small"}',
    status: 400,
    code: 'BAD_REQUEST',
    param: 'input',
  },
  {
    name: 'embeddings bad encoding',
    path: '/embeddings',
    body: '{"model":"acme/embed-small","input":"x","encoding_format":"hex"}',
    status: 400,
    code: 'BAD_REQUEST',
    param: 'encoding_format',
  },
  {
    name: 'images without prompt',
    path: '/images/generations',
    body: '{"model":"acme/image-1"}',
    status: 400,
    code: 'BAD_REQUEST',
    param: 'prompt',
  },
  {
    name: 'images bad size',
    path: '/images/generations',
    body: '{"model":"acme/image-1","prompt":"x","size":"big"}',
    status: 400,
    code: 'BAD_REQUEST',
    param: 'size',
  },
  {
    name: 'images n zero',
    path: '/images/generations',
    body: '{"model":"acme/image-1","prompt":"x","n":0}',
    status: 400,
    code: 'BAD_REQUEST',
    param: 'n',
  },
  {
    name: 'wrong content type',
    path: '/chat/completions',
    body: 'model=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    status: 415,
    code: 'BAD_REQUEST',
  },
  // bug: a charset other than UTF-8 was read as UTF-8 and answered 200
  ...['latin1', 'utf-16', '"ISO-8859-1"'].map(
    (charset): Case => ({
      name: `JSON in charset ${charset}`,
      path: '/chat/completions',
      body: chat({}),
      headers: { 'content-type': `application/json; charset=${charset}` },
      status: 415,
      code: 'BAD_REQUEST',
    }),
  ),
  {
    name: 'JSON in charset latin1 on embeddings',
    path: '/embeddings',
    body: '{"model":"acme/embed-small","input":"caf\u00e9"}',
    headers: { 'content-type': 'application/json; charset=latin1' },
    status: 415,
    code: 'BAD_REQUEST',
  },
  {
    name: 'body too large',
    path: '/chat/completions',
    body: chat({ pad: 'x'.repeat(5000) }),
    status: 413,
    code: 'BAD_REQUEST',
  },
  {
    name: 'no key',
    path: '/chat/completions',
    body: chat({}),
    headers: { authorization: '' },
    status: 401,
    code: 'UNAUTHORIZED',
  },
  {
    name: 'wrong key',
    path: '/models',
    method: 'GET',
    headers: { authorization: 'Bearer sk-nope' },
    status: 401,
    code: 'UNAUTHORIZED',
  },
  {
    name: 'generation without key',
    path: '/generation/gen_x',
    method: 'GET',
    headers: { authorization: '' },
    status: 401,
    code: 'UNAUTHORIZED',
  },
  {
    name: 'unknown generation',
    path: '/generation/gen_00000000-0000-0000-0000-000000000000',
    method: 'GET',
    status: 404,
    code: null,
  },
  {
    name: 'unknown model detail',
    path: '/models/acme/none',
    method: 'GET',
    status: 404,
    code: 'MODEL_NOT_FOUND',
  },
  { name: 'unknown path', path: '/nothing-here', method: 'GET', status: 404, code: null },
  { name: 'wrong method', path: '/chat/completions', method: 'GET', status: 405, code: null },
];

describe('bad input gets the contract error shape', () => {
  it.each(cases)('$name → $status $code', async (testCase) => {
    const headers: Record<string, string> = {
      authorization: `Bearer ${TEST_KEY}`,
      'content-type': 'application/json',
      ...testCase.headers,
    };
    if (headers.authorization === '') delete headers.authorization;
    const response = await fetch(`${env.baseURL}${testCase.path}`, {
      method: testCase.method ?? 'POST',
      headers,
      body: testCase.method === 'GET' ? undefined : testCase.body,
    });
    expect(response.status).toBe(testCase.status);
    expect(response.headers.get('x-request-id')).toBeTruthy();
    expect(response.headers.get('content-type')).toContain('application/json');
    const body = (await response.json()) as {
      error: { message: unknown; code: unknown; type: unknown; param: unknown };
    };
    expect(typeof body.error.message).toBe('string');
    expect(body.error.code).toBe(testCase.code);
    expect(typeof body.error.type).toBe('string');
    if (testCase.param) expect(body.error.param).toBe(testCase.param);
  });

  it.each(['utf-8', 'UTF-8', '"utf-8"', 'utf8'])('takes JSON declared as charset=%s', async (charset) => {
    const response = await fetch(`${env.baseURL}/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${TEST_KEY}`,
        'content-type': `application/json; charset=${charset}`,
      },
      body: chat({}),
    });
    expect(response.status).toBe(200);
  });

  it('the gateway keeps serving after all of them', async () => {
    const response = await fetch(`${env.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEY}`, 'content-type': 'application/json' },
      body: chat({}),
    });
    expect(response.status).toBe(200);
  });

  it('health needs no key', async () => {
    const response = await fetch(`${env.gateway.url}/health`);
    expect(response.status).toBe(200);
  });
});
