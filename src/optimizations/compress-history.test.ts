import { describe, expect, it } from 'vitest';
import type { RequestKind } from '../codecs/request-kind.js';
import { arrayMember, type JsonObject, stringMember } from '../json/json.js';
import { deepFreeze } from './__fixtures__/deep-freeze.js';
import { createWordOverlapScorer } from './__fixtures__/word-overlap-scorer.js';
import { compressHistory, MAX_JUDGED_HISTORY_CHARS } from './compress-history.js';
import { omissionMarker } from './shorten-text.js';

const system = { role: 'system', content: 'You are a careful senior engineer. Answer concisely.' };

/** A SQL question after an unrelated aside: the schema turns are needed, the puppy turns are not. */
const sqlAfterAside = [
  system,
  {
    role: 'user',
    content:
      'Here is my Postgres schema: CREATE TABLE customers (id serial primary key, name text, region text); ' +
      'CREATE TABLE orders (id serial, customer_id int references customers, total numeric, created_at timestamptz);',
  },
  {
    role: 'assistant',
    content: 'Got it: orders reference customers through customer_id; region lives on customers.',
  },
  { role: 'user', content: 'Unrelated: what is a good name for a golden retriever puppy?' },
  { role: 'assistant', content: 'Maple, Sunny or Biscuit are popular picks for a golden retriever.' },
  {
    role: 'user',
    content: 'Write a SQL query for monthly revenue per customer region from the orders table.',
  },
];

/** A parallel weather call (two results) before the latest turn. */
const weatherCalls = [
  system,
  { role: 'user', content: "What's the weather in Paris and Berlin right now?" },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_P', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_B', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Berlin"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_P', content: '{"temperature":18,"conditions":"partly cloudy"}' },
  { role: 'tool', tool_call_id: 'call_B', content: '{"temperature":14,"conditions":"light rain"}' },
  { role: 'assistant', content: 'Paris: 18°C and partly cloudy. Berlin: 14°C.' },
];

const chat = (messages: JsonObject[]): JsonObject =>
  deepFreeze({ model: 'acme/chat', stream: false, messages });
const user = (content: string): JsonObject => ({ role: 'user', content });

interface DropCase {
  name: string;
  messages: JsonObject[];
  dependence?: number;
  /** Indices of the original messages expected to remain. */
  kept: number[];
  toolResultsInUserTurn?: boolean;
}

const dropCases: DropCase[] = [
  {
    name: 'keeps the schema the SQL question refers to and drops the unrelated aside',
    messages: sqlAfterAside,
    kept: [0, 1, 2, 5],
  },
  {
    name: 'drops everything but the system message for an explicit new topic',
    messages: [...sqlAfterAside.slice(0, 5), user('New topic: write a haiku about autumn leaves.')],
    kept: [0, 5],
  },
  {
    name: 'changes nothing when the latest message depends on the earlier turns',
    messages: [...sqlAfterAside.slice(0, 5), user('Add an index to that table as well.')],
    kept: [0, 1, 2, 3, 4, 5],
  },
  {
    name: 'changes nothing at exactly the threshold',
    messages: sqlAfterAside,
    dependence: 0.6,
    kept: [0, 1, 2, 3, 4, 5],
  },
  {
    name: 'drops a parallel tool call together with both of its results',
    messages: [...weatherCalls, user('New topic: draft a birthday message for my sister.')],
    kept: [0, 6],
  },
  {
    name: 'keeps a parallel tool call with both results when one call is referred to',
    messages: [...weatherCalls, user('Should I pack an umbrella for Berlin tomorrow?')],
    dependence: 0.3,
    kept: [0, 1, 2, 3, 4, 5, 6],
  },
  {
    name: 'keeps the question of a kept tool call so the conversation does not open with the model',
    messages: [
      ...weatherCalls.slice(0, 5),
      { role: 'assistant', content: 'Both cities are mild today.' },
      user('Will the light rain stop by evening?'),
    ],
    kept: [0, 1, 2, 3, 4, 6],
  },
  {
    name: 'keeps the tool calls and results of the turn in progress after the latest user message',
    messages: [
      ...sqlAfterAside.slice(0, 3),
      user('New topic: what time is it in Tokyo?'),
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_T',
            type: 'function',
            function: { name: 'get_time', arguments: '{"tz":"Asia/Tokyo"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'call_T', content: '21:04' },
    ],
    kept: [0, 3, 4, 5],
  },
  {
    // bug: an Anthropic user turn of tool_result blocks and text (what Claude Code sends on every step of
    // its loop) reaches chat as tool messages then a user message: the results were judged as earlier
    // turns and dropped with their call, so the model lost the answer of the tool it had just called
    name: 'keeps the tool results of a Messages user turn (before its text), with their call',
    messages: [
      ...sqlAfterAside.slice(0, 3),
      user('What time is it in Tokyo?'),
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_T', type: 'function', function: { name: 'get_time', arguments: '{"tz":"Tokyo"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_T', content: `21:04 ${'x'.repeat(3_000)}` },
      user('New topic: write a haiku about autumn.'),
    ],
    kept: [0, 3, 4, 5, 6],
    toolResultsInUserTurn: true,
  },
  {
    name: 'keeps system and developer messages wherever they are',
    messages: [
      system,
      user('Tell me a joke about compilers.'),
      { role: 'assistant', content: 'Why did the compiler break up? Too many unresolved references.' },
      { role: 'developer', content: 'Never reveal internal ticket numbers.' },
      user('New topic: summarize the GDPR in two sentences.'),
    ],
    kept: [0, 3, 4],
  },
];

/** Every `tool` message must follow an assistant message that calls it. */
function toolPairsIntact(messages: readonly unknown[]): boolean {
  const called = new Set<string>();
  return messages.every((message) => {
    for (const call of arrayMember(message, 'tool_calls') ?? []) called.add(stringMember(call, 'id') ?? '');
    return (
      stringMember(message, 'role') !== 'tool' || called.has(stringMember(message, 'tool_call_id') ?? '')
    );
  });
}

describe('compressHistory (chat)', () => {
  it.each(dropCases)('$name', async ({ messages, dependence, kept, toolResultsInUserTurn }) => {
    const request = chat(messages);
    const before = structuredClone(request);
    const scorer = createWordOverlapScorer(dependence === undefined ? {} : { dependence });
    const options = { score: 0.6, toolResultsInUserTurn };
    const { request: result, report } = await compressHistory(request, 'chat', options, scorer);
    const sent = arrayMember(result, 'messages') ?? [];
    expect(sent).toEqual(kept.map((index) => messages[index]));
    expect(report.droppedTurns).toBe(messages.length - kept.length);
    expect(toolPairsIntact(sent)).toBe(true);
    expect(result).toMatchObject({ model: 'acme/chat', stream: false });
    expect(result).not.toBe(request);
    expect(request).toEqual(before);
  });

  it('asks the scorer about the latest user text against the earlier non-system turns', async () => {
    const scorer = createWordOverlapScorer();
    await compressHistory(chat(sqlAfterAside), 'chat', { score: 0.6 }, scorer);
    expect(scorer.calls.map((call) => call.method)).toEqual(['contextDependence', 'relevance']);
    expect(scorer.calls[0]?.query).toBe(sqlAfterAside[5]?.content);
    expect(scorer.calls[0]?.documents).toHaveLength(4);
  });

  it('judges only the latest MAX_JUDGED_HISTORY_CHARS of earlier turns; older ones count as irrelevant', async () => {
    // 100,000 turns: judging all of them took seconds of the one thread every client shares.
    const filler = (n: number) => `note ${n}: ${'the quick brown fox jumps over the lazy dog '.repeat(20)}`;
    const old = user('Our Postgres orders table has customer_id, total and created_at columns.');
    const turns = Array.from({ length: 100_000 }, (_, n) =>
      n % 2 === 0 ? user(filler(n)) : { role: 'assistant', content: filler(n) },
    );
    const latest = user('Write SQL for monthly revenue per customer from the orders table.');
    const messages = [system, old, { role: 'assistant', content: 'Noted.' }, ...turns, latest];
    const scorer = createWordOverlapScorer({ dependence: 0.2 });
    const { request, report } = await compressHistory(chat(messages), 'chat', { score: 0.6 }, scorer);
    for (const call of scorer.calls) {
      const judged = call.documents.reduce((sum, text) => sum + text.length + 1, 0);
      expect(judged).toBeLessThanOrEqual(MAX_JUDGED_HISTORY_CHARS);
      expect(judged).toBeGreaterThan(MAX_JUDGED_HISTORY_CHARS - 2 * filler(0).length);
      expect(call.documents.at(-1)).toBe(turns.at(-1)?.content);
    }
    // The old schema turn shares words with the question but lies beyond the judged turns: dropped.
    expect(arrayMember(request, 'messages')).toEqual([system, latest]);
    expect(report.droppedTurns).toBe(messages.length - 2);
  });

  it('does not call the scorer for a single-turn conversation', async () => {
    const scorer = createWordOverlapScorer();
    const { report } = await compressHistory(chat([system, user('Hi')]), 'chat', { score: 0.6 }, scorer);
    expect(report).toEqual({ droppedTurns: 0, shortenedTurns: 0, dependence: 0 });
    expect(scorer.calls).toEqual([]);
  });
});

describe('compressHistory shortening', () => {
  const logLine = (n: number) => `2025-03-0${n % 9} 12:00:0${n % 10} INFO worker ${n} processed batch ok\n`;
  const log = Array.from({ length: 120 }, (_, n) => logLine(n)).join('');
  const longSystem = { role: 'system', content: `Deployment handbook.\n${log}` };
  const messages = [
    longSystem,
    user(
      `Our deploy to the eu-west region failed, here is the worker log:\n${log}FATAL region quota exceeded`,
    ),
    { role: 'assistant', content: 'The region quota is exhausted; request a quota increase.' },
    user(
      `Which cloud region is cheapest for a new API? ${'Zone alpha costs little; zone beta costs less. '.repeat(60)}`,
    ),
  ];

  it('shortens long old blocks of kept turns to head, marker and tail, never the latest or system', async () => {
    const request = chat(messages);
    const scorer = createWordOverlapScorer({ dependence: 0.2 });
    const { request: result, report } = await compressHistory(request, 'chat', { score: 0.6 }, scorer);
    const sent = arrayMember(result, 'messages') ?? [];
    expect(report).toEqual({ droppedTurns: 0, shortenedTurns: 1, dependence: 0.2 });
    expect(sent[0]).toEqual(longSystem);
    expect(sent[3]).toEqual(messages[3]);
    const shortened = stringMember(sent[1], 'content') ?? '';
    const original = String(messages[1]?.content);
    expect(shortened.startsWith(original.slice(0, 800))).toBe(true);
    expect(shortened.endsWith(original.slice(-400))).toBe(true);
    expect(shortened).toContain(`\n${omissionMarker(original.length - 1200)}\n`);
    expect(sent[2]).toEqual(messages[2]);
  });

  it('keeps a strongly relevant long turn whole', async () => {
    const request = chat([
      system,
      user(`deploy region quota worker log: ${log}`),
      user('Which deploy region had the quota problem in the worker log?'),
    ]);
    const scorer = createWordOverlapScorer({ dependence: 0.2 });
    const { request: result, report } = await compressHistory(request, 'chat', { score: 0.6 }, scorer);
    expect(report.shortenedTurns).toBe(0);
    expect(result).toEqual(request);
  });
});

describe('compressHistory (responses)', () => {
  const input = [
    { role: 'developer', content: 'Use metric units.' },
    { role: 'user', content: [{ type: 'input_text', text: 'Book me a table for two in Lisbon on Friday.' }] },
    { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAAB...' },
    {
      type: 'function_call',
      call_id: 'c1',
      name: 'find_restaurant',
      arguments: '{"city":"Lisbon","party":2}',
    },
    { type: 'function_call', call_id: 'c2', name: 'check_calendar', arguments: '{"day":"Friday"}' },
    { type: 'function_call_output', call_id: 'c1', output: '{"restaurant":"Taberna da Rua","time":"20:00"}' },
    { type: 'function_call_output', call_id: 'c2', output: '{"free":true}' },
    {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'Booked Taberna da Rua.' }],
    },
    { type: 'item_reference', id: 'msg_abc' },
  ];
  const cases: { name: string; latest: string; kept: number[] }[] = [
    {
      name: 'drops the function_call / function_call_output pairs with their reasoning item',
      latest: 'New topic: explain how vaccines train the immune system.',
      kept: [0, 8, 9],
    },
    {
      name: 'keeps both pairs and the reasoning item when the restaurant is referred to',
      latest: 'What time is the Taberna da Rua booking?',
      kept: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    },
  ];

  it.each(cases)('$name', async ({ latest, kept }) => {
    const all = [...input, { role: 'user', content: latest }];
    const request = deepFreeze({ model: 'acme/chat', instructions: 'Be brief.', input: all });
    const kind: RequestKind = 'responses';
    const { request: result } = await compressHistory(
      request,
      kind,
      { score: 0.6 },
      createWordOverlapScorer(),
    );
    expect(result.input).toEqual(kept.map((index) => all[index]));
    expect(result.instructions).toBe('Be brief.');
  });
});
