import { describe, expect, it } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { type JsonObject, recordMember, stringMember } from '../json/json.js';
import { deepFreeze } from './__fixtures__/deep-freeze.js';
import { chatToolCatalog, responsesToolCatalog } from './__fixtures__/tool-catalog.js';
import { createWordOverlapScorer } from './__fixtures__/word-overlap-scorer.js';
import { MAX_SCORED_TOOLS, selectTools } from './select-tools.js';

const catalogNames = chatToolCatalog.map(
  (tool) => stringMember(recordMember(tool, 'function'), 'name') ?? '',
);
const defaults = { acceptScore: 0.5, alwaysInclude: [] };

const chatRequest = (messages: JsonObject[], extra: JsonObject = {}): JsonObject =>
  deepFreeze({
    model: 'acme/agent',
    temperature: 0,
    messages: [
      { role: 'system', content: 'You are an assistant with access to company tools.' },
      ...messages,
    ],
    tools: chatToolCatalog,
    tool_choice: 'auto',
    parallel_tool_calls: true,
    ...extra,
  });
const ask = (content: string): JsonObject[] => [{ role: 'user', content }];

/** Names of the function tools a chat request sends. */
const sentNames = (request: JsonObject): string[] =>
  (Array.isArray(request.tools) ? request.tools : []).map(
    (tool) => stringMember(recordMember(tool, 'function'), 'name') ?? stringMember(tool, 'type') ?? '',
  );

interface PromptCase {
  name: string;
  messages: JsonObject[];
  expected: string[];
}

const promptCases: PromptCase[] = [
  {
    name: 'weather forecast',
    messages: ask("What's the weather forecast for Lisbon this weekend?"),
    expected: ['get_current_weather', 'get_weather_forecast'],
  },
  {
    name: 'scheduling, with the availability tool the event tool depends on',
    messages: ask('Schedule a meeting with Priya and Tom next Tuesday afternoon'),
    expected: ['create_calendar_event', 'check_availability'],
  },
  {
    name: 'a warehouse question, with the table tools the query tool depends on (transitively)',
    messages: ask('How many orders did we ship last month? Check the warehouse.'),
    expected: ['run_sql_query', 'list_database_tables', 'describe_table'],
  },
  {
    name: 'currency conversion',
    messages: ask('Convert 250 euros to Japanese yen'),
    expected: ['convert_currency'],
  },
  {
    name: 'a CRM update',
    messages: ask('Move the Acme deal to negotiation and log a note about the call'),
    expected: ['crm_get_account', 'crm_search_deals', 'crm_update_deal', 'crm_log_activity'],
  },
  {
    name: 'a follow-up that only makes sense with the turn before it',
    messages: [
      { role: 'user', content: "What's the weather in Lisbon?" },
      { role: 'assistant', content: 'Sunny and 24°C in Lisbon right now.' },
      { role: 'user', content: 'And tomorrow?' },
    ],
    expected: ['get_current_weather', 'get_weather_forecast'],
  },
  {
    name: 'a tool already called in the conversation, for a new topic',
    messages: [
      { role: 'user', content: 'How is ACME trading today?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_q',
            type: 'function',
            function: { name: 'get_stock_quote', arguments: '{"symbol":"ACME"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_q', content: '{"price":131.2,"change":"+1.4%"}' },
      { role: 'assistant', content: 'ACME is at 131.20, up 1.4% today.' },
      { role: 'user', content: 'Thanks. Tell me a joke about penguins.' },
    ],
    expected: ['get_stock_quote'],
  },
];

describe('selectTools: relevant tools of a 33-tool catalog survive', () => {
  it.each(promptCases)('$name', async ({ messages, expected }) => {
    const request = chatRequest(messages);
    const before = structuredClone(request);
    const { request: result, report } = await selectTools(
      request,
      'chat',
      defaults,
      createWordOverlapScorer(),
    );
    expect(report.loadedTools).toEqual(expected);
    expect(sentNames(result)).toEqual(expected);
    expect(report.removedTools).toEqual(catalogNames.filter((name) => !expected.includes(name)));
    expect(result).toMatchObject({
      model: 'acme/agent',
      temperature: 0,
      tool_choice: 'auto',
      parallel_tool_calls: true,
    });
    expect(request).toEqual(before);
  });

  it.each([
    {
      prompt: 'Email the Q3 revenue summary to Dana Whitfield',
      kept: ['send_email', 'search_contacts'],
      removed: ['get_current_weather', 'run_sql_query', 'book_hotel', 'post_slack_message'],
    },
    {
      prompt: 'Find me a flight from Lisbon to Berlin on May 3 and a hotel near the station',
      kept: ['search_flights', 'book_hotel'],
      removed: ['send_email', 'run_sql_query', 'create_jira_ticket', 'calculate', 'convert_currency'],
    },
    {
      prompt: 'Post the release notes to the #eng Slack channel',
      kept: ['post_slack_message'],
      removed: ['send_email', 'web_search', 'create_jira_ticket', 'read_file'],
    },
  ])('keeps the tools for "$prompt" and few others', async ({ prompt, kept, removed }) => {
    const { report } = await selectTools(
      chatRequest(ask(prompt)),
      'chat',
      defaults,
      createWordOverlapScorer(),
    );
    expect(report.loadedTools).toEqual(expect.arrayContaining(kept));
    for (const name of removed) expect(report.loadedTools).not.toContain(name);
    expect(report.loadedTools.length).toBeLessThanOrEqual(6);
  });
});

describe('selectTools: what is kept whatever its score', () => {
  const joke = ask('Tell me a joke about penguins.');

  it.each([
    {
      name: 'alwaysInclude',
      request: chatRequest(joke),
      options: { acceptScore: 0.5, alwaysInclude: ['calculate', 'not_a_tool'] },
      expected: ['calculate'],
    },
    {
      name: 'the dependencies of an alwaysInclude tool, transitively',
      request: chatRequest(joke),
      options: { acceptScore: 0.5, alwaysInclude: ['run_sql_query'] },
      expected: ['run_sql_query', 'list_database_tables', 'describe_table'],
    },
    {
      name: 'the dependency of a scored tool that scores nothing itself',
      request: chatRequest(ask('Send Dana the signed contract')),
      options: defaults,
      expected: ['send_email', 'search_contacts'],
    },
    {
      name: 'the function a chat tool_choice forces',
      request: chatRequest(joke, { tool_choice: { type: 'function', function: { name: 'web_search' } } }),
      options: defaults,
      expected: ['web_search'],
    },
    {
      name: 'the functions of a chat allowed_tools choice',
      request: chatRequest(joke, {
        tool_choice: {
          type: 'allowed_tools',
          allowed_tools: {
            mode: 'auto',
            tools: [
              { type: 'function', function: { name: 'translate_text' } },
              { type: 'function', function: { name: 'fetch_url' } },
            ],
          },
        },
      }),
      options: defaults,
      expected: ['fetch_url', 'translate_text'],
    },
    {
      name: 'the best-scoring tool when tool_choice is required and none reaches acceptScore',
      request: chatRequest(ask('Weather in Lisbon'), { tool_choice: 'required' }),
      options: { acceptScore: 0.9, alwaysInclude: [] },
      expected: ['get_current_weather'],
    },
  ])('$name', async ({ request, options, expected }) => {
    const { request: result, report } = await selectTools(
      request,
      'chat',
      options,
      createWordOverlapScorer(),
    );
    expect(report.loadedTools).toEqual(expected);
    expect(result.tool_choice).toEqual(request.tool_choice);
  });

  it('scores tools against the latest message and a little context, with tool texts naming parameters', async () => {
    const scorer = createWordOverlapScorer();
    const messages = [
      { role: 'user', content: "What's the weather in Lisbon?" },
      { role: 'assistant', content: 'Sunny and 24°C.' },
      { role: 'user', content: 'And tomorrow?' },
    ];
    await selectTools(chatRequest(messages), 'chat', defaults, scorer);
    expect(scorer.calls).toHaveLength(1);
    expect(scorer.calls[0]?.query).toBe("What's the weather in Lisbon?\nSunny and 24°C.\nAnd tomorrow?");
    expect(scorer.calls[0]?.documents[0]).toBe(
      'get current weather (get_current_weather)\n' +
        'Current weather conditions (temperature, wind, humidity) for a city.\n' +
        'location: City name, e.g. "Lisbon, PT"\nunits: celsius or fahrenheit',
    );
  });

  it('removes tools, tool_choice and parallel_tool_calls together when no tool is left', async () => {
    const request = chatRequest(ask('Tell me a joke about penguins.'));
    const { request: result, report } = await selectTools(
      request,
      'chat',
      defaults,
      createWordOverlapScorer(),
    );
    expect(report).toEqual({ loadedTools: [], removedTools: catalogNames });
    expect(Object.keys(result)).toEqual(['model', 'temperature', 'messages']);
  });
});

describe('selectTools: bounded', () => {
  const tool = (n: number) => ({
    type: 'function',
    function: { name: `lookup_${n}`, description: `Looks up record ${n}.`, parameters: { type: 'object' } },
  });

  it(`scores up to ${MAX_SCORED_TOOLS} function tools, and answers 400 for more`, async () => {
    const tools = Array.from({ length: MAX_SCORED_TOOLS }, (_, n) => tool(n));
    const scorer = createWordOverlapScorer();
    const request = chatRequest(ask('Look up record 7.'), { tools });
    const { report } = await selectTools(request, 'chat', defaults, scorer);
    expect(report.loadedTools.length + report.removedTools.length).toBe(MAX_SCORED_TOOLS);
    const tooMany = chatRequest(ask('Look up record 7.'), { tools: [...tools, tool(MAX_SCORED_TOOLS)] });
    const error = await selectTools(tooMany, 'chat', defaults, scorer).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({
      status: 400,
      code: 'INVALID_GATEWAY_SETTINGS',
      param: 'gateway.toolOptimization',
    });
    expect((error as GatewayError).message).toContain(`${MAX_SCORED_TOOLS + 1}`);
  });
});

describe('selectTools (responses)', () => {
  const builtIns = [
    { type: 'web_search', search_context_size: 'low' },
    { type: 'file_search', vector_store_ids: ['vs_1'] },
  ];
  const request = (input: unknown, extra: JsonObject = {}): JsonObject =>
    deepFreeze({
      model: 'acme/agent',
      instructions: 'Use the tools when useful.',
      input,
      tools: [...builtIns, ...responsesToolCatalog()],
      tool_choice: 'auto',
      ...extra,
    });

  it('keeps relevant functions and every built-in tool', async () => {
    const { request: result, report } = await selectTools(
      request('Convert 250 euros to Japanese yen'),
      'responses',
      defaults,
      createWordOverlapScorer(),
    );
    expect(report.loadedTools).toEqual(['convert_currency']);
    expect(result.tools).toEqual([
      ...builtIns,
      ...responsesToolCatalog().filter((tool) => tool.name === 'convert_currency'),
    ]);
  });

  it('keeps built-in tools and tool_choice when every function is removed', async () => {
    const { request: result, report } = await selectTools(
      request('Tell me a joke about penguins.'),
      'responses',
      defaults,
      createWordOverlapScorer(),
    );
    expect(report.loadedTools).toEqual([]);
    expect(result).toMatchObject({ tools: builtIns, tool_choice: 'auto' });
  });

  it('keeps the function a Responses tool_choice names and the functions already called', async () => {
    const input = [
      { role: 'user', content: 'Translate "good morning" into Portuguese.' },
      {
        type: 'function_call',
        call_id: 'fc_1',
        name: 'translate_text',
        arguments: '{"text":"good morning"}',
      },
      { type: 'function_call_output', call_id: 'fc_1', output: 'bom dia' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'It is "bom dia".' }] },
      { role: 'user', content: 'Thanks!' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'You are welcome.' }] },
      { role: 'user', content: [{ type: 'input_text', text: 'Tell me a joke about penguins.' }] },
    ];
    const { report } = await selectTools(
      request(input, { tool_choice: { type: 'function', name: 'fetch_url' } }),
      'responses',
      defaults,
      createWordOverlapScorer(),
    );
    expect(report.loadedTools).toEqual(['fetch_url', 'translate_text']);
  });
});
