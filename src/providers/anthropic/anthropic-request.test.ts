import { describe, expect, it } from 'vitest';
import { DEFAULT_OUTPUT_BOUND } from '../../accounting/worst-case.js';
import type { JsonObject } from '../../json/json.js';
import { DEFAULT_MAX_TOKENS } from './anthropic-reasoning.js';
import { JSON_OBJECT_INSTRUCTION, toMessagesRequest } from './anthropic-request.js';

const LONG = 'z'.repeat(20_000);
/** Every warning names the client's values cut short: none carries their whole length. */
function expectBounded(warnings: string[], expected: number): void {
  expect(warnings.filter((warning) => /z{40,64}… /.test(warning))).toHaveLength(expected);
  for (const warning of warnings) expect(warning).not.toContain('z'.repeat(65));
}

/** `null`: the catalog has no maximum for the model. */
const translate = (chat: JsonObject, maxOutputTokens: number | null = 8192, stream = false) =>
  toMessagesRequest(chat, { maxOutputTokens: maxOutputTokens ?? undefined, stream });

const user = (content: unknown) => ({ role: 'user', content });
const base = { model: 'claude-x', messages: [user('Hi')] };

const WEATHER_TOOL = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
};
const TIME_TOOL = { type: 'function', function: { name: 'get_time' } };

describe('toMessagesRequest: options', () => {
  it('defaults max_tokens to the model maximum, else 4096; max_completion_tokens wins over max_tokens', () => {
    expect(translate(base).body.max_tokens).toBe(8192);
    expect(translate(base, null).body.max_tokens).toBe(DEFAULT_MAX_TOKENS);
    expect(translate({ ...base, max_tokens: 300, max_completion_tokens: 200 }).body.max_tokens).toBe(200);
  });

  it('maps stop to stop_sequences and sets stream only when streaming', () => {
    expect(translate({ ...base, stop: 'END' }).body.stop_sequences).toEqual(['END']);
    expect(translate({ ...base, stop: null }).body).not.toHaveProperty('stop_sequences');
    expect(translate(base, 8192, true).body.stream).toBe(true);
    expect(translate({ ...base, stream: true }).body).not.toHaveProperty('stream');
  });

  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'any' }],
    [
      { type: 'function', function: { name: 'get_time' } },
      { type: 'tool', name: 'get_time' },
    ],
  ])('maps tool_choice %j', (choice, expected) => {
    const { body } = translate({ ...base, tools: [WEATHER_TOOL, TIME_TOOL], tool_choice: choice });
    expect(body.tool_choice).toEqual(expected);
    expect(body.tools).toEqual([
      {
        name: 'get_weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
      { name: 'get_time', input_schema: { type: 'object', properties: {} } },
    ]);
  });

  it('disables parallel tool use on a forced choice, and narrows allowed_tools', () => {
    const forced = translate({
      ...base,
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
    expect(forced.body.tool_choice).toEqual({ type: 'any', disable_parallel_tool_use: true });
    const allowed = translate({
      ...base,
      tools: [WEATHER_TOOL, TIME_TOOL],
      tool_choice: {
        type: 'allowed_tools',
        allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'get_time' } }] },
      },
    });
    expect(allowed.body.tools).toEqual([
      { name: 'get_time', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(allowed.body.tool_choice).toEqual({ type: 'any' });
  });

  it('sends strict function tools as strict tools and passes Anthropic server tools untouched', () => {
    const webSearch = { type: 'web_search_20250305', name: 'web_search', max_uses: 3 };
    const strictTool = { type: 'function', function: { ...WEATHER_TOOL.function, strict: true } };
    const loose = { type: 'function', function: { ...TIME_TOOL.function, strict: false } };
    const { body } = translate({ ...base, tools: [strictTool, loose, webSearch] });
    expect(body.tools).toEqual([
      { name: 'get_weather', input_schema: WEATHER_TOOL.function.parameters, strict: true },
      { name: 'get_time', input_schema: { type: 'object', properties: {} } },
      webSearch,
    ]);
  });

  it('leaves out Gemini built-in tools (from the Gemini ingress) with a warning', () => {
    const { body, warnings } = translate({ ...base, tools: [WEATHER_TOOL, { codeExecution: {} }] });
    expect(body.tools).toEqual([{ name: 'get_weather', input_schema: WEATHER_TOOL.function.parameters }]);
    expect(warnings).toContain(
      'tools.codeExecution (a Gemini built-in tool) is not supported by the Anthropic Messages API; dropped',
    );
  });

  it('sends a json_schema response_format as output_config.format', () => {
    const schema = {
      type: 'object',
      properties: { city: { type: 'string' }, celsius: { type: 'number' } },
      required: ['city', 'celsius'],
      additionalProperties: false,
    };
    const { body, warnings } = translate({
      ...base,
      response_format: { type: 'json_schema', json_schema: { name: 'weather', strict: true, schema } },
    });
    expect(body.output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(body).not.toHaveProperty('response_format');
    expect(warnings).toEqual([]);
  });

  it('asks for json_object output in the system prompt, with a warning', () => {
    const { body, warnings } = translate({
      model: 'claude-x',
      messages: [{ role: 'system', content: 'Be terse.' }, user('List two colours')],
      response_format: { type: 'json_object' },
    });
    expect(body.system).toEqual([
      { type: 'text', text: 'Be terse.' },
      { type: 'text', text: JSON_OBJECT_INSTRUCTION },
    ]);
    expect(warnings).toEqual([expect.stringContaining('json_object')]);
  });

  it('maps user and safety_identifier to metadata.user_id, and service tiers', () => {
    expect(translate({ ...base, user: 'u-1' }).body.metadata).toEqual({ user_id: 'u-1' });
    expect(translate({ ...base, user: 'u-1', safety_identifier: 's-1' }).body.metadata).toEqual({
      user_id: 's-1',
    });
    expect(translate({ ...base, service_tier: 'default' }).body.service_tier).toBe('standard_only');
    const flex = translate({ ...base, service_tier: 'flex' });
    expect(flex.body).not.toHaveProperty('service_tier');
    expect(flex.warnings).toEqual([expect.stringContaining('service_tier')]);
  });

  it('passes temperature, top_p, top_k and vendor parameters; caps temperature at 1 with a warning', () => {
    const { body, warnings } = translate({
      ...base,
      temperature: 0.5,
      top_p: 0.8,
      top_k: 40,
      container: 'container_011CP',
    });
    expect(body).toMatchObject({ temperature: 0.5, top_p: 0.8, top_k: 40, container: 'container_011CP' });
    expect(warnings).toEqual([]);
    const hot = translate({ ...base, temperature: 1.6 });
    expect(hot.body.temperature).toBe(1);
    expect(hot.warnings).toEqual(["temperature 1.6 is above Anthropic's maximum of 1; 1 was sent"]);
  });
});

describe('toMessagesRequest: reasoning', () => {
  it('maps reasoning_effort to a thinking budget below max_tokens', () => {
    const { body, warnings } = translate({ ...base, reasoning_effort: 'medium' }, 32000);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    expect(body.max_tokens).toBe(32000);
    expect(body).not.toHaveProperty('reasoning_effort');
    expect(warnings).toEqual([]);
  });

  it('makes room for the budget when max_tokens comes from nowhere', () => {
    const { body } = translate({ ...base, reasoning_effort: 'high' }, null);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 24576 });
    expect(body.max_tokens).toBe(24576 + DEFAULT_MAX_TOKENS);
  });

  it('never makes room past the output the request was reserved for (32,768 when nothing sets a limit)', () => {
    const { body, warnings } = translate({ ...base, reasoning_effort: 'xhigh' }, null);
    expect(body.max_tokens).toBe(DEFAULT_OUTPUT_BOUND);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: DEFAULT_OUTPUT_BOUND / 2 });
    expect(warnings).toEqual([expect.stringContaining('reasoning budget reduced from 32768')]);
  });

  it('halves the budget to fit a small max_tokens, or leaves reasoning off, with warnings', () => {
    const reduced = translate({ ...base, reasoning_effort: 'high', max_tokens: 6000 });
    expect(reduced.body.thinking).toEqual({ type: 'enabled', budget_tokens: 3000 });
    expect(reduced.warnings).toEqual([
      'reasoning budget reduced from 24576 to 3000 tokens to fit max_tokens 6000',
    ]);
    const off = translate({ ...base, reasoning_effort: 'low', max_tokens: 1000 });
    expect(off.body).not.toHaveProperty('thinking');
    expect(off.warnings).toEqual([expect.stringContaining('reasoning was not enabled')]);
  });

  it('drops what the API refuses with thinking on: temperature, top_k, low top_p, forced tool choice', () => {
    const { body, warnings } = translate({
      ...base,
      reasoning_effort: 'low',
      temperature: 0.2,
      top_p: 0.5,
      top_k: 5,
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
    });
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    expect(body).not.toHaveProperty('top_k');
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(warnings).toHaveLength(4);
  });

  it('keeps a thinking object sent in Anthropic form and ignores reasoning_effort then', () => {
    const thinking = { type: 'enabled', budget_tokens: 5000 };
    const { body, warnings } = translate({ ...base, thinking, reasoning_effort: 'high' });
    expect(body.thinking).toEqual(thinking);
    expect(warnings).toEqual(['reasoning_effort was ignored because the request sets Anthropic thinking']);
  });
});

describe('toMessagesRequest: parameters Anthropic cannot take', () => {
  it('leaves them out, each with a warning', () => {
    const { body, warnings } = translate({
      ...base,
      n: 2,
      logprobs: true,
      top_logprobs: 3,
      presence_penalty: 0.5,
      frequency_penalty: 0.2,
      seed: 42,
      logit_bias: { '50256': -100 },
      modalities: ['text', 'audio'],
      audio: { voice: 'alloy', format: 'wav' },
      metadata: { purpose: 'eval' },
    });
    const dropped = [
      'n',
      'logprobs',
      'top_logprobs',
      'presence_penalty',
      'frequency_penalty',
      'seed',
      'logit_bias',
      'modalities',
      'audio',
    ];
    for (const key of [...dropped, 'metadata']) expect(body).not.toHaveProperty(key);
    expect(warnings).toEqual([
      ...dropped.map((key) => `${key} is not supported by the Anthropic Messages API; not sent`),
      'metadata is not supported by the Anthropic Messages API (it takes only a user id); not sent',
    ]);
  });

  it('leaves out default values without a warning, since they change nothing', () => {
    const { body, warnings } = translate({
      ...base,
      n: 1,
      presence_penalty: 0,
      logprobs: false,
      store: false,
      seed: null,
      stream_options: { include_usage: true },
    });
    expect(warnings).toEqual([]);
    for (const key of ['n', 'presence_penalty', 'logprobs', 'store', 'seed', 'stream_options']) {
      expect(body).not.toHaveProperty(key);
    }
  });

  it('warns about dropped content: audio input, image detail', () => {
    const { body, warnings } = translate({
      model: 'claude-x',
      messages: [
        user([
          { type: 'input_audio', input_audio: { data: 'UklGR', format: 'wav' } },
          { type: 'image_url', image_url: { url: 'https://example.org/cat.png', detail: 'high' } },
        ]),
      ],
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'image', source: { type: 'url', url: 'https://example.org/cat.png' } }],
      },
    ]);
    expect(warnings).toHaveLength(2);
  });
  // Bug: warnings quoted client values whole (a 20,000-character type made a header clients refuse).
  it('quotes client values in warnings at most 64 characters long', () => {
    const { warnings } = translate({
      ...base,
      messages: [user([{ type: 'file', file: { file_data: `data:${LONG};base64,AAAA` } }])],
      reasoning_effort: LONG,
      response_format: { type: LONG },
      service_tier: LONG,
      tools: [WEATHER_TOOL],
      tool_choice: { type: LONG },
    });
    expectBounded(warnings, 5);
  });
});
