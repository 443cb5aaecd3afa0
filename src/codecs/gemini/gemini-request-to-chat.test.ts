import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { isRecord, type JsonObject } from '../../json/json.js';
import { geminiRequestToChat } from './gemini-request-to-chat.js';
import { parseGenerateContentRequest } from './parse-gemini-request.js';

const LONG = 'z'.repeat(20_000);
/** Every warning names the client's values cut short: none carries their whole length. */
function expectBounded(warnings: string[], expected: number): void {
  expect(warnings.filter((warning) => /z{40,64}… /.test(warning))).toHaveLength(expected);
  for (const warning of warnings) expect(warning).not.toContain('z'.repeat(65));
}

/** A request as @google/genai 2.32.0 sent it (recorded): history with a tool round trip, every config. */
function recorded(): JsonObject {
  const url = new URL('./__fixtures__/genai-generate-content-request.json', import.meta.url);
  const fixture: unknown = JSON.parse(readFileSync(url, 'utf8'));
  if (!isRecord(fixture) || !isRecord(fixture.body)) throw new Error('bad fixture');
  return fixture.body;
}

const translate = (body: unknown) =>
  geminiRequestToChat(parseGenerateContentRequest(body), 'acme/chat-large');
const user = (text: string) => ({ role: 'user', parts: [{ text }] });

describe('geminiRequestToChat', () => {
  it('translates a recorded @google/genai request into the canonical chat request', () => {
    const { body, warnings, includeThoughts } = translate(recorded());
    expect(body).toStrictEqual({
      model: 'acme/chat-large',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is the weather in Paris?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
              extra_content: { google: { thought_signature: 'sig-gemini' } },
            },
          ],
          thinking_blocks: [{ type: 'thinking', thinking: 'Let me look.', signature: 'sig-claude' }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temperature_c":18}' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
        // A Gemini built-in tool, for a Gemini provider (others drop it with a warning).
        { googleSearch: {} },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      temperature: 0.3,
      top_p: 0.9,
      top_k: 40,
      max_tokens: 256,
      seed: 7,
      stop: ['END'],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'response',
          schema: {
            type: 'object',
            properties: { city: { type: ['string', 'null'] } },
            required: ['city'],
          },
        },
      },
      reasoning_effort: 'medium',
    });
    expect(includeThoughts).toBe(true);
    expect(warnings).toEqual([expect.stringContaining('safetySettings')]);
  });

  it('pairs function responses with unanswered calls by name, in order, when the client kept no id', () => {
    const call = (city: string) => ({ functionCall: { name: 'get_weather', args: { city } } });
    const answer = (t: number) => ({ functionResponse: { name: 'get_weather', response: { t } } });
    const { body } = translate({
      contents: [
        user('Paris and Rome?'),
        { role: 'model', parts: [call('Paris'), call('Rome')] },
        { role: 'user', parts: [answer(18), answer(24), { text: 'Thanks' }] },
      ],
    });
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const ids = (
      isRecord(messages[1]) && Array.isArray(messages[1].tool_calls) ? messages[1].tool_calls : []
    ).map((c) => (isRecord(c) ? c.id : undefined));
    expect(ids).toEqual([expect.stringMatching(/^call_/), expect.stringMatching(/^call_/)]);
    expect(messages.slice(2)).toEqual([
      { role: 'tool', tool_call_id: ids[0], content: '{"t":18}' },
      { role: 'tool', tool_call_id: ids[1], content: '{"t":24}' },
      { role: 'user', content: 'Thanks' },
    ]);
  });

  it('pairs a response by its id first, and one without an id with the first call of its name left', () => {
    const call = (id: string) => ({ functionCall: { id, name: 'f', args: {} } });
    const { body } = translate({
      contents: [
        user('go'),
        { role: 'model', parts: [call('a1'), call('b1'), call('c1')] },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'b1', name: 'f', response: { n: 1 } } },
            { functionResponse: { name: 'f', response: { n: 2 } } },
            { functionResponse: { id: 'gone', name: 'f', response: { n: 3 } } },
          ],
        },
      ],
    });
    const tools = (Array.isArray(body.messages) ? body.messages : []).slice(2);
    expect(tools.map((m) => (isRecord(m) ? [m.tool_call_id, m.content] : m))).toEqual([
      ['b1', '{"n":1}'],
      ['a1', '{"n":2}'],
      ['c1', '{"n":3}'],
    ]);
  });

  it('pairs 50,000 function responses with their calls in linear time, and takes 200,000 contents', () => {
    const pairs = 50_000;
    const { body } = translate({
      contents: [
        user('go'),
        {
          role: 'model',
          parts: Array.from({ length: pairs }, () => ({ functionCall: { name: 'f', args: {} } })),
        },
        {
          role: 'user',
          parts: Array.from({ length: pairs }, (_, n) => ({
            functionResponse: { name: 'f', response: { n } },
          })),
        },
      ],
    });
    const messages = Array.isArray(body.messages) ? body.messages : [];
    const calls =
      isRecord(messages[1]) && Array.isArray(messages[1].tool_calls) ? messages[1].tool_calls : [];
    expect(messages).toHaveLength(2 + pairs);
    expect(
      messages.slice(2).every((m, n) => isRecord(m) && isRecord(calls[n]) && m.tool_call_id === calls[n].id),
    ).toBe(true);
    // Appending that many turns must not pass them as arguments (a stack overflow, answered 500).
    const many = translate({ contents: Array.from({ length: 200_000 }, (_, n) => user(`t${n}`)) });
    expect(Array.isArray(many.body.messages) && many.body.messages.length).toBe(200_000);
  });

  it('converts every property of a Gemini schema, whatever its name (nullable, default, enum, …)', () => {
    const names = ['nullable', 'default', 'enum', 'required', 'example', 'propertyOrdering', 'type'];
    const { body } = translate({
      contents: [user('go')],
      tools: [
        {
          functionDeclarations: [
            {
              name: 'f',
              parameters: {
                type: 'OBJECT',
                properties: Object.fromEntries(
                  names.map((name) => [name, { type: 'STRING', nullable: true }]),
                ),
                required: names,
                propertyOrdering: names,
              },
            },
          ],
        },
      ],
    });
    const tools = Array.isArray(body.tools) ? body.tools : [];
    const fn = isRecord(tools[0]) && isRecord(tools[0].function) ? tools[0].function : {};
    expect(fn.parameters).toEqual({
      type: 'object',
      properties: Object.fromEntries(names.map((name) => [name, { type: ['string', 'null'] }])),
      required: names,
    });
  });

  it('keeps a thought whole when a streamed answer was kept one content per chunk (text, then its signature)', () => {
    const { body } = translate({
      contents: [
        user('go'),
        { role: 'model', parts: [{ text: 'Let me ', thought: true }] },
        { role: 'model', parts: [{ text: 'think', thought: true }] },
        { role: 'model', parts: [{ text: '', thought: true, thoughtSignature: 'SIGabc' }] },
        { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true } } }] },
      ],
    });
    const messages = Array.isArray(body.messages) ? body.messages : [];
    expect(messages).toHaveLength(3);
    const assistant = messages[1] as JsonObject;
    expect(assistant.thinking_blocks).toEqual([
      { type: 'thinking', thinking: 'Let me think', signature: 'SIGabc' },
    ]);
    expect(Array.isArray(assistant.tool_calls) && assistant.tool_calls.length).toBe(1);
    expect((messages[2] as JsonObject).role).toBe('tool');
  });

  it('keeps a model turn with code execution: its parts as sent for Gemini, the code and output as text', () => {
    const parts = [
      { text: 'Running it.' },
      { executableCode: { language: 'PYTHON', code: 'print(2 ** 10)' } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1024' } },
      { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      { text: 'It is 1024.', thoughtSignature: 'SIGx' },
    ];
    const { body, warnings } = translate({
      contents: [user('2**10?'), { role: 'model', parts }, user('thanks')],
    });
    const messages = Array.isArray(body.messages) ? body.messages : [];
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: 'Running it.\n```python\nprint(2 ** 10)\n```\n\nOutput:\n```\n1024\n```\nIt is 1024.',
      extra_content: { google: { parts } },
    });
    // The bug: the code and its result were dropped, with a warning.
    expect(warnings).toEqual([
      'inlineData parts of model turns reach Gemini providers only; not sent to others',
    ]);
  });

  it('rejects a function response that answers no call, naming the part', () => {
    const request = {
      contents: [{ role: 'user', parts: [{ functionResponse: { name: 'f', response: {} } }] }],
    };
    expect(() => translate(request)).toThrow(GatewayError);
    expect(() => translate(request)).toThrow(/contents\.0\.parts\.0\.functionResponse/);
  });

  it('maps thinking budgets and levels to reasoning_effort', () => {
    const effort = (thinkingConfig: JsonObject) =>
      translate({ contents: [user('Hi')], generationConfig: { thinkingConfig } }).body.reasoning_effort;
    expect(effort({ thinkingBudget: 0 })).toBe('none');
    expect(effort({ thinkingBudget: -1 })).toBeUndefined();
    expect(effort({ thinkingBudget: 1500 })).toBe('low');
    expect(effort({ thinkingBudget: 30000 })).toBe('high');
    expect(effort({ thinkingLevel: 'HIGH' })).toBe('high');
  });

  it('asks for JSON without a schema as json_object, and warns on what chat cannot take', () => {
    const { body, warnings } = translate({
      contents: [user('Hi')],
      generationConfig: { responseMimeType: 'application/json', responseModalities: ['TEXT'] },
      cachedContent: 'cachedContents/abc',
    });
    expect(body.response_format).toEqual({ type: 'json_object' });
    expect(warnings).toEqual([
      expect.stringContaining('cachedContent'),
      'generationConfig.responseModalities is not supported on this route; ignored',
    ]);
  });

  it('passes the gateway object and unknown members through, and 400s contents with nothing to send', () => {
    const { body } = translate({ contents: [user('Hi')], gateway: { zdr: true }, extra: 1 });
    expect(body).toMatchObject({ gateway: { zdr: true }, extra: 1 });
    const empty = { contents: [{ role: 'model', parts: [{ text: 'x', thought: true }] }] };
    expect(() => translate(empty)).toThrow(/contents: hold no part/);
    expect(() => translate({ contents: [] })).toThrow(/contents: must hold at least one content/);
  });
  // Bug: warnings quoted client values whole (a 20,000-character type made a header clients refuse).
  it('quotes client values in warnings at most 64 characters long', () => {
    const { warnings } = geminiRequestToChat(
      {
        contents: [
          {
            role: 'user',
            parts: [{ text: 'hi' }, { [LONG]: 1 }, { fileData: { mimeType: LONG, fileUri: 'gs://b/f' } }],
          },
          { role: 'model', parts: [{ text: 'ok' }, { [LONG]: 1 }] },
          { role: 'user', parts: [{ text: 'and?' }] },
        ],
        generationConfig: { [LONG]: 1, responseMimeType: LONG, thinkingConfig: { thinkingLevel: LONG } },
        tools: [{ [LONG]: {} }],
      },
      'm',
    );
    // The built-in tool's warning is the provider's (see gemini-built-in-tools.test.ts).
    expectBounded(warnings, 6);
  });
});
