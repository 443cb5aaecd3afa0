import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../accounting/usage.js';
import { decodeAnswer, encodeAnswer } from './cached-answer.js';

const meta = {
  form: 'chat' as const,
  orgId: 'acme',
  usage: { ...emptyUsage(), inputTokens: 12, outputTokens: 7 },
  costNano: 80_000,
  provider: 'fake-cloud',
  warnings: ['temperature dropped'],
  streamable: true,
};

describe('cached answers', () => {
  it('read back as they were written', () => {
    const body = { id: 'c', choices: [{ index: 0, message: { content: 'é "quoted"' } }] };
    expect(decodeAnswer(encodeAnswer(meta, JSON.stringify(body)), 'acme')).toEqual({ ...meta, body });
  });

  it.each([
    ['another organization', encodeAnswer(meta, '{}'), 'other'],
    ['text that is not JSON', '{"form":', 'acme'],
    ['an unknown form', encodeAnswer({ ...meta, form: 'images' as 'chat' }, '{}'), 'acme'],
    [
      'a negative token count',
      encodeAnswer({ ...meta, usage: { ...meta.usage, inputTokens: -1 } }, '{}'),
      'acme',
    ],
    ['a body that is not an object', encodeAnswer(meta, '[1]'), 'acme'],
  ])('are refused when they hold %s', (_name, text, orgId) => {
    expect(decodeAnswer(text, orgId)).toBeUndefined();
  });
});
