import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import type { JsonObject } from '../../json/json.js';
import { SKIP_THOUGHT_SIGNATURE } from './gemini-messages.js';
import { toGeminiRequest, usesThinkingBudget } from './gemini-request.js';

const fixture = (name: string): JsonObject =>
  JSON.parse(readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'));

const user = (content: unknown) => ({ role: 'user', content });
const translate = (body: JsonObject, model = 'gemini-2.5-flash') => toGeminiRequest(body, model);

describe('Gemini request: messages', () => {
  it('translates a conversation with system prompts, images, tool calls and tool results', () => {
    const { body, warnings } = translate(fixture('chat-request-tool-history.json'), 'gemini-3-flash-preview');
    expect(body).toEqual(fixture('gemini-request-tool-history.json'));
    expect(warnings).toEqual([]);
  });

  it('sends plain text as a user turn and leaves out what was not asked for', () => {
    const { body } = translate({ model: 'gemini-2.5-flash', messages: [user('Hi')] });
    expect(body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
  });

  it('merges a turn of 300,000 parts into the one before it (no argument-count limit)', () => {
    const parts = Array.from({ length: 300_000 }, (_, n) => ({ type: 'text', text: `p${n}` }));
    const { body } = translate({ messages: [user('first'), user(parts)] });
    const contents = Array.isArray(body.contents) ? body.contents : [];
    expect(contents).toHaveLength(1);
    const merged = (contents[0] as JsonObject).parts;
    expect(Array.isArray(merged) && merged.length).toBe(300_001);
  });

  it('merges consecutive turns of one role', () => {
    const { body } = translate({
      messages: [user('a'), user([{ type: 'text', text: 'b' }]), { role: 'assistant', content: 'c' }],
    });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
      { role: 'model', parts: [{ text: 'c' }] },
    ]);
  });

  it('warns about image URLs whose media type it cannot tell, and sends them without one', () => {
    const { body, warnings } = translate({
      messages: [user([{ type: 'image_url', image_url: { url: 'https://example.com/render?id=7' } }])],
    });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ fileData: { fileUri: 'https://example.com/render?id=7' } }] },
    ]);
    expect(warnings).toEqual([
      'the media type of the image URL at messages.0.content.0 is unknown; sent to Gemini without a mimeType',
    ]);
  });

  // bug: the warning quoted the URL, and warnings are kept in the record (zdr ones too): a presigned URL's
  // credentials, or a path naming someone, were stored.
  it('names the image by its place, never by its URL', () => {
    const url =
      'https://bucket.example.com/christian/render?X-Amz-Credential=AKIAEXAMPLE&X-Amz-Signature=abc';
    const { warnings } = translate({ messages: [user([{ type: 'image_url', image_url: { url } }])] });
    expect(warnings.join(' ')).not.toContain('christian');
    expect(warnings.join(' ')).not.toContain('AKIAEXAMPLE');
  });

  it('sends audio inline and drops parts Gemini cannot take with a warning', () => {
    const { body, warnings } = translate({
      messages: [
        user([
          { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'mp3' } },
          { type: 'file', file: { file_id: 'file-abc' } },
        ]),
      ],
    });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ inlineData: { mimeType: 'audio/mp3', data: 'UklGRg==' } }] },
    ]);
    expect(warnings).toEqual(['file parts with a file_id are not supported by Gemini; the file was dropped']);
  });

  it("sends a Gemini turn's own parts as they came, each functionCall from the message's tool call", () => {
    const parts = [
      { executableCode: { language: 'PYTHON', code: 'print(1)' } },
      { codeExecutionResult: { outcome: 'OUTCOME_OK', output: '1' } },
      { functionCall: { name: 'stale', args: {} } },
      { text: 'Done.', thoughtSignature: 'SIGt' },
    ];
    const toolCall = {
      id: 'c1',
      type: 'function',
      function: { name: 'f', arguments: '{"a":1}' },
      extra_content: { google: { thought_signature: 'SIGc' } },
    };
    const messages = [
      user('Go'),
      {
        role: 'assistant',
        content: 'rendered',
        tool_calls: [toolCall],
        extra_content: { google: { parts } },
      },
      { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
    ];
    const { body, warnings } = translate({ messages }, 'gemini-3-pro-preview');
    expect(body.contents).toMatchObject([
      {},
      {
        role: 'model',
        parts: [
          parts[0],
          parts[1],
          { functionCall: { name: 'f', args: { a: 1 } }, thoughtSignature: 'SIGc' },
          parts[3],
        ],
      },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { ok: true } } }] },
    ]);
    expect(warnings).toEqual([]);
  });

  it('fills a missing thought signature on Gemini 3 with the documented placeholder, and warns', () => {
    const messages = [
      user('Weather?'),
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: '[1, 2]' },
    ];
    const modern = translate({ messages }, 'gemini-3-pro-preview');
    expect(modern.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather?' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { name: 'get_weather', args: {} }, thoughtSignature: SKIP_THOUGHT_SIGNATURE },
        ],
      },
      {
        role: 'user',
        parts: [{ functionResponse: { name: 'get_weather', response: { content: '[1, 2]' } } }],
      },
    ]);
    expect(modern.warnings[0]).toContain('tool call get_weather carries no Gemini thought signature');
    const legacy = translate({ messages }, 'gemini-2.5-flash');
    expect(legacy.body.contents).toMatchObject([
      {},
      { parts: [{ functionCall: { name: 'get_weather' } }] },
      {},
    ]);
    expect(JSON.stringify(legacy.body)).not.toContain(SKIP_THOUGHT_SIGNATURE);
    expect(legacy.warnings).toEqual([]);
  });

  it('rejects tool call arguments that are not a JSON object as a 400', () => {
    const error = catchError(() =>
      translate({
        messages: [
          {
            role: 'assistant',
            tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":' } }],
          },
        ],
      }),
    );
    expect(error).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      param: 'messages.0.tool_calls.0.function.arguments',
    });
  });

  it('rejects a tool result whose call it cannot find as a 400', () => {
    const error = catchError(() =>
      translate({ messages: [{ role: 'tool', tool_call_id: 'nope', content: 'x' }] }),
    );
    expect(error).toMatchObject({ status: 400, code: 'BAD_REQUEST', param: 'messages.0.tool_call_id' });
  });
});

describe('Gemini request: tools and tool_choice', () => {
  const tools = [
    { type: 'function', function: { name: 'a', parameters: { type: 'object', properties: {} } } },
    { type: 'function', function: { name: 'b', strict: true } },
    { googleSearch: {} },
    { type: 'custom', custom: { name: 'grammar' } },
  ];

  it('declares functions, passes native Gemini tools through and warns about the rest', () => {
    const { body, warnings } = translate({ messages: [user('x')], tools });
    expect(body.tools).toEqual([
      {
        functionDeclarations: [
          { name: 'a', parametersJsonSchema: { type: 'object', properties: {} } },
          { name: 'b' },
        ],
      },
      { googleSearch: {} },
    ]);
    expect(body.toolConfig).toBeUndefined();
    expect(warnings).toEqual([
      'tools[].function.strict is not supported by Gemini; arguments are not guaranteed to match',
      'tools of type custom are not supported by Gemini; dropped',
    ]);
  });

  it.each([
    ['auto', { mode: 'AUTO' }],
    ['none', { mode: 'NONE' }],
    ['required', { mode: 'ANY' }],
    [
      { type: 'function', function: { name: 'b' } },
      { mode: 'ANY', allowedFunctionNames: ['b'] },
    ],
    [
      {
        type: 'allowed_tools',
        allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'a' } }] },
      },
      { mode: 'ANY', allowedFunctionNames: ['a'] },
    ],
  ])('maps tool_choice %j to %j', (choice, config) => {
    const { body } = translate({ messages: [user('x')], tools: tools.slice(0, 2), tool_choice: choice });
    expect(body.toolConfig).toEqual({ functionCallingConfig: config });
  });

  it('limits the declarations for allowed_tools in auto mode (Gemini names functions only in ANY mode)', () => {
    const { body } = translate({
      messages: [user('x')],
      tools: tools.slice(0, 2),
      tool_choice: {
        type: 'allowed_tools',
        allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'b' } }] },
      },
    });
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: 'b' }] }]);
    expect(body.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
  });
});

describe('Gemini request: generation settings', () => {
  it('maps sampling, length, stop, candidates and penalties into generationConfig', () => {
    const { body } = translate({
      messages: [user('x')],
      temperature: 0,
      top_p: 0.5,
      top_k: 40,
      max_tokens: 100,
      max_completion_tokens: 200,
      stop: ['a', 'b'],
      n: 2,
      seed: 1,
      presence_penalty: 0.1,
      frequency_penalty: -0.2,
    });
    expect(body.generationConfig).toEqual({
      temperature: 0,
      topP: 0.5,
      topK: 40,
      maxOutputTokens: 200,
      stopSequences: ['a', 'b'],
      candidateCount: 2,
      seed: 1,
      presencePenalty: 0.1,
      frequencyPenalty: -0.2,
    });
  });

  it('sends a json_schema response format as responseJsonSchema, unchanged but for $schema', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { city: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
      required: ['city', 'tags'],
      additionalProperties: false,
    };
    const { body } = translate({
      messages: [user('x')],
      response_format: { type: 'json_schema', json_schema: { name: 'place', strict: true, schema } },
    });
    const { $schema: _draft, ...rest } = schema;
    expect(body.generationConfig).toEqual({ responseMimeType: 'application/json', responseJsonSchema: rest });
    const jsonObject = translate({ messages: [user('x')], response_format: { type: 'json_object' } });
    expect(jsonObject.body.generationConfig).toEqual({ responseMimeType: 'application/json' });
  });

  it('maps reasoning_effort to a thinking budget on Gemini 2.x and a thinking level on Gemini 3', () => {
    const config = (effort: string, model: string) =>
      translate({ messages: [user('x')], reasoning_effort: effort }, model).body.generationConfig;
    expect(config('low', 'gemini-2.5-flash')).toEqual({
      thinkingConfig: { thinkingBudget: 1024, includeThoughts: true },
    });
    expect(config('high', 'gemini-2.5-pro')).toEqual({
      thinkingConfig: { thinkingBudget: 24576, includeThoughts: true },
    });
    expect(config('none', 'gemini-2.5-flash')).toEqual({ thinkingConfig: { thinkingBudget: 0 } });
    expect(config('medium', 'gemini-3-flash-preview')).toEqual({
      thinkingConfig: { thinkingLevel: 'medium', includeThoughts: true },
    });
    const none = translate({ messages: [user('x')], reasoning_effort: 'none' }, 'gemini-3-pro-preview');
    expect(none.body.generationConfig).toEqual({
      thinkingConfig: { thinkingLevel: 'minimal', includeThoughts: true },
    });
    expect(none.warnings).toEqual([
      'reasoning_effort "none": this Gemini model cannot turn thinking off; sent thinkingLevel minimal',
    ]);
    expect(usesThinkingBudget('models/gemini-2.0-flash')).toBe(true);
    expect(usesThinkingBudget('gemini-3.1-pro-preview')).toBe(false);
  });

  it('merges a caller-supplied Gemini generationConfig over the translated one', () => {
    const { body } = translate({
      messages: [user('x')],
      temperature: 1,
      max_tokens: 10,
      generationConfig: { temperature: 0.2, responseModalities: ['TEXT'] },
    });
    expect(body.generationConfig).toEqual({
      temperature: 0.2,
      maxOutputTokens: 10,
      responseModalities: ['TEXT'],
    });
  });
});

describe('Gemini request: what Gemini cannot take', () => {
  it('does not send OpenAI-only parameters and reports each one, but passes unknown members through', () => {
    const { body, warnings } = translate({
      model: 'gemini-2.5-flash',
      messages: [user('x')],
      stream: true,
      stream_options: { include_usage: true },
      logit_bias: { '50256': -100 },
      logprobs: true,
      top_logprobs: 3,
      parallel_tool_calls: false,
      user: 'u-1',
      store: false,
      service_tier: 'auto',
      // The bug: it went to Gemini, which refuses a body with a member it does not know.
      prompt_cache_retention: 'in_memory',
      cachedContent: 'cachedContents/abc123',
      labels: { team: 'search' },
    });
    expect(body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'x' }] }],
      cachedContent: 'cachedContents/abc123',
      labels: { team: 'search' },
    });
    expect(warnings).toEqual([
      'logit_bias is not supported by Gemini; not sent',
      'logprobs is not supported by Gemini; not sent',
      'top_logprobs is not supported by Gemini; not sent',
      'parallel_tool_calls is not supported by Gemini; not sent',
      'user is not supported by Gemini; not sent',
      'prompt_cache_retention is not supported by Gemini; not sent',
    ]);
  });
});

function catchError(run: () => unknown): GatewayError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  return undefined;
}

// Bug: warnings quoted client values whole (a 20,000-character type made a header clients refuse).
describe('toGeminiRequest: warnings quote client values', () => {
  const LONG = 'z'.repeat(20_000);
  it('quotes client values in warnings at most 64 characters long', () => {
    const body = {
      messages: [
        {
          role: 'user',
          content: [
            { type: LONG },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: LONG } },
          ],
        },
      ],
      tools: [{ type: LONG }, { type: 'function', function: { name: 'f', parameters: {} } }],
      tool_choice: { type: LONG },
      response_format: { type: LONG },
      reasoning_effort: LONG,
    };
    for (const model of ['gemini-2.5-flash', 'gemini-3-pro-preview']) {
      const { warnings } = translate(body, model);
      expect(warnings.filter((warning) => /z{64}…/.test(warning))).toHaveLength(6);
      for (const warning of warnings) expect(warning).not.toContain('z'.repeat(65));
    }
  });
});

// Bug: errors quoted the client's values in records too, zdr or not (a role or a call id may hold prompt text).
describe('toGeminiRequest: errors quoting client values', () => {
  it('show the client its value, and keep none for records', () => {
    const unknownRole = catchError(() => translate({ messages: [{ role: 'the memo says', content: 'x' }] }));
    expect(unknownRole?.message).toBe('messages.0.role: the memo says is not a chat role');
    expect(unknownRole?.recordMessage).toBe('messages.0.role: (a value of the request) is not a chat role');
    const unknownCall = catchError(() =>
      translate({ messages: [user('x'), { role: 'tool', tool_call_id: 'the memo says', content: '1' }] }),
    );
    expect(unknownCall?.message).toContain('has the id the memo says');
    expect(unknownCall?.recordMessage).toBe(
      'messages.1.tool_call_id: no earlier assistant tool call has the id (a value of the request)',
    );
  });
});
