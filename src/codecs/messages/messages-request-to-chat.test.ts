import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { arrayMember, isRecord, type JsonObject } from '../../json/json.js';
import { messagesRequestToChat, reasoningEffortFor } from './messages-request-to-chat.js';
import { parseCountTokensRequest, parseMessagesRequest } from './parse-messages-request.js';

const LONG = 'z'.repeat(20_000);
/** Every warning names the client's values cut short: none carries their whole length. */
function expectBounded(warnings: string[], expected: number): void {
  expect(warnings.filter((warning) => /z{40,64}… /.test(warning))).toHaveLength(expected);
  for (const warning of warnings) expect(warning).not.toContain('z'.repeat(65));
}

function fixture(name: string): JsonObject {
  const parsed: unknown = JSON.parse(
    readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'),
  );
  if (!isRecord(parsed)) throw new Error(`${name} is not a JSON object`);
  return parsed;
}

/** Parses and translates, as the endpoint does. */
const translate = (request: JsonObject) => messagesRequestToChat(parseMessagesRequest(request));

const base = { model: 'acme/chat-large', max_tokens: 256 };
const user = (content: unknown) => ({ ...base, messages: [{ role: 'user', content }] });

function failure(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

describe('messagesRequestToChat', () => {
  it('translates system, images, tool_use/tool_result history, tools and tool_choice into a chat request', () => {
    const { body, warnings } = translate(fixture('messages-request-with-tool-history.json'));

    expect(body).toStrictEqual({
      model: 'acme/chat-large',
      temperature: 0.3,
      top_p: 0.9,
      top_k: 40,
      stream: false,
      gateway: { order: ['fast-cloud'] },
      custom_vendor_flag: { keep: true },
      messages: [
        {
          role: 'system',
          content:
            'You are a travel assistant.\n\nUse the tools for live data. Answer in one short paragraph.',
        },
        {
          role: 'user',
          content: [
            { type: 'text', text: "Where is this, and what's the weather there and in Berlin?" },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/europe-map.png' } },
          ],
        },
        {
          role: 'assistant',
          content: 'That is Paris. Let me check both cities.',
          thinking_blocks: [
            {
              type: 'thinking',
              thinking: 'The photo shows the Eiffel Tower, so Paris. I need the weather for two cities.',
              signature: 'EqQBCkYIBxgCKkBrUeIvTF0wVbJ5',
            },
          ],
          tool_calls: [
            {
              id: 'toolu_01A09q90qw90lq917835lq9',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' },
            },
            {
              id: 'toolu_01B7kPq2vXa8Zr3LmN5tY6wE',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Berlin","unit":"celsius"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_01A09q90qw90lq917835lq9', content: '18°C, partly cloudy' },
        {
          role: 'tool',
          tool_call_id: 'toolu_01B7kPq2vXa8Zr3LmN5tY6wE',
          content: 'Error: weather service timed out',
        },
        { role: 'user', content: [{ type: 'text', text: 'Retry Berlin if you can.' }] },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Current weather for a city.',
            parameters: {
              type: 'object',
              properties: {
                city: { type: 'string' },
                unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
              },
              required: ['city'],
            },
          },
        },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
      stop: ['\n\nHuman:'],
      max_tokens: 1024,
      reasoning_effort: 'medium',
      user: 'user-7f3a',
    });
    expect(warnings).toStrictEqual([
      'tools of type web_search_20250305 are not supported on this route; dropped',
    ]);
  });

  it.each([
    [{ type: 'auto' }, { tool_choice: 'auto' }],
    [{ type: 'any' }, { tool_choice: 'required' }],
    [{ type: 'none' }, { tool_choice: 'none' }],
    [
      { type: 'tool', name: 'get_weather' },
      { tool_choice: { type: 'function', function: { name: 'get_weather' } } },
    ],
    [
      { type: 'auto', disable_parallel_tool_use: true },
      { tool_choice: 'auto', parallel_tool_calls: false },
    ],
  ])('maps tool_choice %j', (toolChoice, expected) => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' } }];
    const { body } = translate({ ...user('hi'), tools, tool_choice: toolChoice });
    expect({ tool_choice: body.tool_choice, parallel_tool_calls: body.parallel_tool_calls }).toStrictEqual({
      parallel_tool_calls: undefined,
      ...expected,
    });
  });

  it('drops tool_choice when no tool is left to choose', () => {
    const { body } = translate({ ...user('hi'), tool_choice: { type: 'any' } });
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('tools');
  });

  it.each([
    [1024, 'low'],
    [4000, 'low'],
    [4096, 'medium'],
    [10000, 'medium'],
    [16384, 'high'],
    [31999, 'high'],
  ])('maps a thinking budget of %i tokens to reasoning_effort %s', (budget, effort) => {
    expect(reasoningEffortFor(budget)).toBe(effort);
    const { body } = translate({ ...user('hi'), thinking: { type: 'enabled', budget_tokens: budget } });
    expect(body.reasoning_effort).toBe(effort);
  });

  it('sends no reasoning_effort when thinking is disabled', () => {
    const { body } = translate({ ...user('hi'), thinking: { type: 'disabled' } });
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(body).not.toHaveProperty('thinking');
  });

  it.each([
    [undefined, 'high'],
    ['low', 'low'],
    ['medium', 'medium'],
    ['high', 'high'],
    ['xhigh', 'xhigh'],
    ['max', 'xhigh'],
  ])(
    'maps adaptive thinking with effort %s to reasoning_effort %s, without a warning',
    (effort, expected) => {
      const { body, warnings } = translate({
        ...user('hi'),
        thinking: { type: 'adaptive' },
        ...(effort === undefined ? {} : { output_config: { effort } }),
      });
      expect(body.reasoning_effort).toBe(expected);
      expect(body).not.toHaveProperty('thinking');
      expect(body).not.toHaveProperty('output_config');
      expect(warnings).toStrictEqual([]);
    },
  );

  it('rejects enabled thinking without a budget and an unknown effort; warns about a thinking type it does not know', () => {
    expect(failure(() => translate({ ...user('hi'), thinking: { type: 'enabled' } })).param).toBe(
      'thinking.budget_tokens',
    );
    const effort = failure(() =>
      translate({ ...user('hi'), thinking: { type: 'adaptive' }, output_config: { effort: 'huge' } }),
    );
    expect(effort.status).toBe(400);
    expect(effort.param).toBe('output_config.effort');
    const { body, warnings } = translate({ ...user('hi'), thinking: { type: 'dreaming' } });
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(warnings).toStrictEqual(['thinking of type "dreaming" is not supported on this route; ignored']);
    // Without a thinking object, effort is the effort (Claude 5 thinks adaptively by default); with thinking
    // disabled chat cannot take it.
    const alone = translate({ ...user('hi'), output_config: { effort: 'low' } });
    expect(alone.body.reasoning_effort).toBe('low');
    expect(alone.warnings).toStrictEqual([]);
    expect(failure(() => translate({ ...user('hi'), output_config: { effort: 'huge' } })).param).toBe(
      'output_config.effort',
    );
    const disabled = translate({
      ...user('hi'),
      thinking: { type: 'disabled' },
      output_config: { effort: 'low' },
    });
    expect(disabled.body).not.toHaveProperty('reasoning_effort');
    expect(disabled.warnings).toStrictEqual(['output_config.effort is not supported on this route; ignored']);
  });

  it('rejects an empty turn other than a final assistant one, and messages that leave nothing to send', () => {
    const empty = failure(() =>
      translate({
        ...base,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'yo' },
          { role: 'user', content: [] },
        ],
      }),
    );
    expect([empty.status, empty.param]).toEqual([400, 'messages.2.content']);
    expect(failure(() => translate(user([]))).param).toBe('messages.0.content');
    const emptyAssistant = failure(() =>
      translate({
        ...base,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: [] },
          { role: 'user', content: 'again' },
        ],
      }),
    );
    expect(emptyAssistant.param).toBe('messages.1.content');
    // A final assistant turn may be empty (as Anthropic allows).
    const final = translate({
      ...base,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: [] },
      ],
    });
    expect(final.body.messages).toHaveLength(2);
    // Only unsupported blocks: nothing is left to send.
    const nothing = failure(() => translate(user([{ type: 'container_upload', file_id: 'file_1' }])));
    expect(nothing.param).toBe('messages');
  });

  it('translates a turn of 200,000 tool results (no argument-count limit on appending them)', () => {
    const results = 200_000;
    const { body } = translate({
      ...base,
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: Array.from({ length: results }, (_, n) => ({
            type: 'tool_use',
            id: `toolu_${n}`,
            name: 'f',
            input: {},
          })),
        },
        {
          role: 'user',
          content: Array.from({ length: results }, (_, n) => ({
            type: 'tool_result',
            tool_use_id: `toolu_${n}`,
            content: 'ok',
          })),
        },
      ],
    });
    expect(Array.isArray(body.messages) && body.messages.length).toBe(2 + results);
  });

  it('keeps string content and a string system prompt as they are', () => {
    const { body, warnings } = translate({ ...user('Hello'), system: 'Be brief.' });
    expect(body.messages).toStrictEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello' },
    ]);
    expect(warnings).toStrictEqual([]);
  });

  it('moves images of a tool result into the user message that follows, labelled with the call', () => {
    const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } };
    const { body } = translate({
      ...base,
      messages: [
        { role: 'user', content: 'Take a screenshot.' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'screenshot', input: {} }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'done' }, image] },
          ],
        },
      ],
    });
    expect(body.messages).toStrictEqual([
      { role: 'user', content: 'Take a screenshot.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'screenshot', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'done' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Image returned by tool call toolu_1:' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });

  it('sends a PDF as a file part and a text document as text', () => {
    const { body } = translate(
      user([
        {
          type: 'document',
          title: 'report.pdf',
          source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0x' },
        },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Plain notes.' } },
      ]),
    );
    expect(body.messages).toStrictEqual([
      {
        role: 'user',
        content: [
          {
            type: 'file',
            file: { filename: 'report.pdf', file_data: 'data:application/pdf;base64,JVBERi0x' },
          },
          { type: 'text', text: 'Plain notes.' },
        ],
      },
    ]);
  });

  it('sends search results and documents with their own content as text, in user turns and tool results (bug: dropped)', () => {
    const result = {
      type: 'search_result',
      source: 'https://example.com/tides',
      title: 'Tide tables',
      content: [
        { type: 'text', text: 'High tide at 06:12.' },
        { type: 'text', text: 'Low tide at 12:30.' },
      ],
    };
    const { body, warnings } = translate({
      ...base,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'When is high tide?' }] },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'search', input: { q: 'tides' } }],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [result] },
            result,
            {
              type: 'document',
              title: 'Notes',
              source: {
                type: 'content',
                content: [
                  { type: 'text', text: 'First note.' },
                  { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
                  { type: 'text', text: 'Second note.' },
                ],
              },
            },
            { type: 'document', source: { type: 'content', content: 'One string.' } },
          ],
        },
      ],
    });
    const text = 'Tide tables\nhttps://example.com/tides\n\nHigh tide at 06:12.\nLow tide at 12:30.';
    expect((body.messages as unknown[]).slice(2)).toStrictEqual([
      { role: 'tool', tool_call_id: 'toolu_1', content: text },
      {
        role: 'user',
        content: [
          { type: 'text', text },
          { type: 'text', text: 'Notes\n\nFirst note.\n\nSecond note.' },
          { type: 'text', text: 'One string.' },
        ],
      },
    ]);
    expect(warnings).toStrictEqual(['document content blocks of type image are dropped on this route']);
  });

  it('warns about what chat cannot take: prefill, Anthropic-only members, unsupported blocks', () => {
    const { body, warnings } = translate({
      ...base,
      service_tier: 'standard_only',
      mcp_servers: [{ type: 'url', url: 'https://mcp.example.com', name: 'x' }],
      messages: [
        { role: 'user', content: [{ type: 'container_upload', file_id: 'file_1' }] },
        { role: 'assistant', content: 'The answer is' },
      ],
    });
    expect(body).not.toHaveProperty('service_tier');
    expect(body).not.toHaveProperty('mcp_servers');
    expect(body.messages).toStrictEqual([{ role: 'assistant', content: 'The answer is' }]);
    expect(warnings).toStrictEqual([
      'mcp_servers (MCP connector) is not supported on this route; ignored',
      'service_tier is not supported on this route; ignored',
      'content blocks of type container_upload are not supported on this route; dropped',
      'a final assistant message (prefill) is sent as an earlier assistant turn; the answer may not continue it',
    ]);
  });
});

describe('parseMessagesRequest', () => {
  it.each([
    ['missing max_tokens', { model: 'm', messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens'],
    ['max_tokens 0', { ...user('hi'), max_tokens: 0 }, 'max_tokens'],
    ['missing model', { max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }, 'model'],
    ['missing messages', { ...base }, 'messages'],
    [
      'a system role in messages',
      { ...base, messages: [{ role: 'system', content: 'x' }] },
      'messages.0.role',
    ],
    [
      'content not a string or blocks',
      { ...base, messages: [{ role: 'user', content: 5 }] },
      'messages.0.content',
    ],
    ['system not text', { ...user('hi'), system: [{ type: 'image' }] }, 'system'],
    ['tool_choice tool without name', { ...user('hi'), tool_choice: { type: 'tool' } }, 'tool_choice'],
  ])('rejects %s with 400 BAD_REQUEST naming the field', (_name, body, param) => {
    const error = failure(() => parseMessagesRequest(body));
    expect({ status: error.status, code: error.code, param: error.param }).toStrictEqual({
      status: 400,
      code: 'BAD_REQUEST',
      param,
    });
  });

  it.each([
    [
      'a tool_use without id',
      [{ type: 'tool_use', name: 'f', input: {} }],
      'assistant',
      'messages.0.content.0.id',
    ],
    [
      'a tool_result without tool_use_id',
      [{ type: 'tool_result', content: 'x' }],
      'user',
      'messages.0.content.0.tool_use_id',
    ],
    [
      'a tool_use in a user turn',
      [{ type: 'tool_use', id: 'a', name: 'f', input: {} }],
      'user',
      'messages.0.content.0',
    ],
    ['an image without source', [{ type: 'image' }], 'user', 'messages.0.content.0.source'],
    ['a text block without text', [{ type: 'text' }], 'user', 'messages.0.content.0.text'],
  ])('rejects %s with 400 naming the block', (_name, content, role, param) => {
    const error = failure(() => translate({ ...base, messages: [{ role, content }] }));
    expect({ status: error.status, code: error.code, param: error.param }).toStrictEqual({
      status: 400,
      code: 'BAD_REQUEST',
      param,
    });
  });

  // Bug (compat cell messages|anthropic|reasoning-tools): the thinking blocks of the tool-use turn sent back
  // were dropped, so Anthropic got [text, tool_use] without its signed thinking and answered 400.
  it('keeps an assistant turn’s signed and redacted thinking as thinking_blocks, drops unsigned thinking', () => {
    const { body, warnings } = translate({
      ...base,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Call the tool.', signature: 'sig_1' },
            { type: 'redacted_thinking', data: 'opaque' },
            { type: 'thinking', thinking: 'Another provider’s reasoning.', signature: '' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18°C' }] },
      ],
    });
    expect(arrayMember(body, 'messages')?.[1]).toStrictEqual({
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: 'toolu_1',
          type: 'function',
          function: { name: 'get_weather', arguments: '{"city":"Paris"}' },
        },
      ],
      thinking_blocks: [
        { type: 'thinking', thinking: 'Call the tool.', signature: 'sig_1' },
        { type: 'redacted_thinking', data: 'opaque' },
      ],
    });
    expect(warnings).toStrictEqual([]);
  });

  // Bug (compat cells messages|{openai,openai-compat,gemini}|structured): output_config reached chat
  // upstreams untranslated, with no response_format.
  it('translates output_config.format json_schema into response_format, and warns about the rest', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const { body, warnings } = translate({
      ...user('hi'),
      output_config: { format: { type: 'json_schema', schema }, effort: 'low' },
    });
    expect(body.response_format).toStrictEqual({
      type: 'json_schema',
      json_schema: { name: 'output', schema, strict: true },
    });
    expect(body).not.toHaveProperty('output_config');
    expect(body.reasoning_effort).toBe('low');
    expect(warnings).toStrictEqual([]);
  });

  it('warns about an output_config.format it cannot translate', () => {
    const { body, warnings } = translate({ ...user('hi'), output_config: { format: { type: 'yaml' } } });
    expect(body).not.toHaveProperty('response_format');
    expect(body).not.toHaveProperty('output_config');
    expect(warnings).toStrictEqual([
      'output_config.format of type yaml is not supported on this route; ignored',
    ]);
  });

  it('rejects a client tool without input_schema', () => {
    const error = failure(() => translate({ ...user('hi'), tools: [{ name: 'f' }] }));
    expect(error.param).toBe('tools.0.input_schema');
  });

  it('takes a count_tokens request without max_tokens', () => {
    const request = parseCountTokensRequest({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
    expect(request.model).toBe('m');
  });
  // Bug: warnings quoted client values whole (a 20,000-character type made a header clients refuse).
  it('quotes client values in warnings at most 64 characters long', () => {
    const { warnings } = messagesRequestToChat({
      model: 'm',
      max_tokens: 10,
      thinking: { type: LONG },
      output_config: { [LONG]: 1, format: { type: LONG } },
      tools: [{ type: LONG, name: 't' }],
      messages: [
        { role: 'user', content: [{ type: LONG }, { type: 'image', source: { type: LONG } }] },
        { role: 'assistant', content: [{ type: LONG }] },
        { role: 'user', content: [{ type: 'document', source: { type: LONG } }] },
      ],
    });
    expectBounded(warnings, 8);
  });
});
