import { describe, expect, it } from 'vitest';
import { schemaErrors } from '../../../test/conformance/published-schemas.js';
import { emptyUsage } from '../../accounting/usage.js';
import { chatChunkWriter, finalizeChatCompletion } from './chat-response.js';

const upstream = (content: string, extra = '') =>
  `{"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","system_fingerprint":"fp","choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"finish_reason":null}]${extra}}`;

describe('chatChunkWriter', () => {
  it('puts role in the first delta and our id and model in every chunk', () => {
    const writer = chatChunkWriter('gen_1', 'acme/m');
    const first = JSON.parse(writer.chunk(JSON.parse(upstream('Hel')), upstream('Hel')));
    expect(first).toMatchObject({
      id: 'gen_1',
      model: 'acme/m',
      choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' } }],
    });
  });

  it.each([
    ['plain text', 'lo'],
    ['text that looks like the fields', '{"id":"chatcmpl-9","model":"gpt-4.1"} "model":"gpt-4.1"'],
    ['unicode', 'naïve — ✓'],
  ])('rewrites later chunks as text exactly like serialising them (%s)', (_name, content) => {
    const writer = chatChunkWriter('gen_1', 'acme/m');
    writer.chunk(JSON.parse(upstream('Hel')), upstream('Hel'));
    const raw = upstream(content, ',"usage":null');
    const text = writer.chunk(JSON.parse(raw), raw);
    expect(JSON.parse(text)).toEqual({ ...JSON.parse(raw), id: 'gen_1', model: 'acme/m' });
    expect(text).not.toContain('chatcmpl-9",');
  });

  it('falls back to serialising a chunk whose text does not have the expected shape', () => {
    const writer = chatChunkWriter('gen_1', 'acme/m');
    writer.chunk(JSON.parse(upstream('Hel')), upstream('Hel'));
    const other = upstream('x').replace('chatcmpl-9', 'chatcmpl-other');
    expect(JSON.parse(writer.chunk(JSON.parse(other), other))).toMatchObject({
      id: 'gen_1',
      model: 'acme/m',
    });
    const noRaw = JSON.parse(upstream('y'));
    expect(JSON.parse(writer.chunk(noRaw))).toMatchObject({ id: 'gen_1', model: 'acme/m' });
  });

  it('repairs every chunk whose choices lack an index or a delta, not only the first', () => {
    const writer = chatChunkWriter('gen_1', 'acme/m');
    const bare = (choice: string) =>
      `{"id":"chatcmpl-9","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[${choice}]}`;
    const first = bare('{"delta":{"content":"a"},"finish_reason":null}');
    expect(JSON.parse(writer.chunk(JSON.parse(first), first)).choices[0].index).toBe(0);
    for (const choice of [
      '{"delta":{"content":"b"},"finish_reason":null}',
      '{"index":0,"delta":null,"finish_reason":"stop"}',
      '{"index":0,"finish_reason":"stop"}',
    ]) {
      const raw = bare(choice);
      const out = JSON.parse(writer.chunk(JSON.parse(raw), raw));
      expect(out.choices[0]).toMatchObject({ index: 0, delta: expect.any(Object) });
      expect(out.id).toBe('gen_1');
    }
  });

  it('puts role in the first delta even when the first choice came with no delta', () => {
    for (const choice of [
      '{"index":0,"finish_reason":null}',
      '{"index":0,"delta":null,"finish_reason":null}',
    ]) {
      const writer = chatChunkWriter('gen_1', 'acme/m');
      const raw = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[${choice}]}`;
      expect(JSON.parse(writer.chunk(JSON.parse(raw), raw)).choices[0].delta).toEqual({ role: 'assistant' });
    }
  });

  it('repairs a later choice that lacks an index or a delta, whatever its position', () => {
    const writer = chatChunkWriter('gen_1', 'acme/m');
    writer.chunk(JSON.parse(upstream('Hel')), upstream('Hel'));
    for (const second of [
      '{"delta":{"content":"c"},"finish_reason":null}',
      '{"index":1,"finish_reason":null}',
    ]) {
      const raw = upstream('b').replace('"finish_reason":null}]', `"finish_reason":null},${second}]`);
      const out = JSON.parse(writer.chunk(JSON.parse(raw), raw));
      for (const choice of out.choices)
        expect(choice).toMatchObject({ index: expect.any(Number), delta: {} });
    }
  });

  it.each([
    [
      'over two data: lines (a line feed between tokens)',
      upstream('b').replace(',"choices"', ',\n"choices"'),
    ],
    ['with the model repeated after the choices', upstream('b').replace(/}$/, ',"model":"gpt-4.1"}')],
    [
      'with a nested model before the real one',
      upstream('b').replace('"created"', '"meta":{"model":"gpt-4.1"},"created"'),
    ],
    ['with the id repeated', upstream('b').replace(/}$/, ',"id":"chatcmpl-9"}')],
    ['with another id last', upstream('b').replace(/}$/, ',"id":"chatcmpl-other"}')],
  ])('serialises a chunk %s instead of passing its text on', (_name, raw) => {
    const writer = chatChunkWriter('gen_1', 'acme/m');
    writer.chunk(JSON.parse(upstream('Hel')), upstream('Hel'));
    const text = writer.chunk(JSON.parse(raw), raw);
    expect(text).not.toContain('\n');
    expect(JSON.parse(text)).toMatchObject({
      id: 'gen_1',
      model: 'acme/m',
      choices: [{ delta: { content: 'b' } }],
    });
    // Once: the top-level member (an unknown member's own `model` passes on as the upstream sent it).
    expect(text.match(/"model":"acme\/m"/g)).toHaveLength(1);
    expect(text).not.toContain('chatcmpl-');
  });
});

describe('finalizeChatCompletion', () => {
  const meta = {
    genId: 'gen_0193',
    model: 'acme/chat',
    usage: { ...emptyUsage(), inputTokens: 5, outputTokens: 2 },
    costNano: 10,
    planningUsage: undefined,
    planningCostNano: 0,
  };

  it('adds the members a compatible server left out (logprobs, refusal) as null, so the answer validates (bug: passed on without)', () => {
    const upstream = {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1,
      model: 'llama',
      choices: [
        { index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' },
        {
          index: 1,
          message: {
            role: 'assistant',
            tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
    };
    const answer = finalizeChatCompletion(upstream, meta);
    expect(schemaErrors('openai', 'CreateChatCompletionResponse', upstream)).not.toEqual([]);
    expect(schemaErrors('openai', 'CreateChatCompletionResponse', answer)).toEqual([]);
    expect(answer.choices).toMatchObject([
      { logprobs: null, message: { content: 'Hi', refusal: null } },
      { logprobs: null, message: { content: null, refusal: null } },
    ]);
  });

  it('keeps an answer that has them as it came (the same choices)', () => {
    const choices = [
      {
        index: 0,
        message: { role: 'assistant', content: 'Hi', refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ];
    expect(finalizeChatCompletion({ choices }, meta).choices).toBe(choices);
  });
});
