import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../accounting/usage.js';
import {
  arrayMember,
  count,
  isRecord,
  type JsonObject,
  recordMember,
  stringMember,
} from '../../json/json.js';
import type { ChatStreamPart } from '../../providers/provider-adapter.js';
import { chatStreamToResponsesEvents } from './chat-stream-to-responses-events.js';
import { thinkingBlocksOf } from './reasoning-item.js';

/** A recorded chunk sequence as the chat adapter hands it on: chunks, and the usage chunk as a usage part. */
function recordedParts(name: string): ChatStreamPart[] {
  const parsed: unknown = JSON.parse(
    readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8'),
  );
  const parts: ChatStreamPart[] = [];
  for (const chunk of Array.isArray(parsed) ? parsed : []) {
    if (!isRecord(chunk)) continue;
    const { usage, ...rest } = chunk;
    if ((arrayMember(chunk, 'choices') ?? []).length > 0) parts.push({ type: 'chunk', chunk: rest });
    if (isRecord(usage)) {
      parts.push({
        type: 'usage',
        usage: {
          ...emptyUsage(),
          inputTokens: count(usage, 'prompt_tokens'),
          outputTokens: count(usage, 'completion_tokens'),
          cachedInputTokens: count(recordMember(usage, 'prompt_tokens_details'), 'cached_tokens'),
        },
      });
    }
  }
  return parts;
}

async function translate(parts: ChatStreamPart[], request: JsonObject = REQUEST): Promise<JsonObject[]> {
  const upstream = new ReadableStream<ChatStreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  const events: JsonObject[] = [];
  for await (const part of upstream.pipeThrough(chatStreamToResponsesEvents(request)))
    events.push(part.event);
  return events;
}

const REQUEST = { model: 'acme/llama-3.3-70b-instruct', input: 'Weather in Paris and Berlin?', stream: true };
const types = (events: JsonObject[]) => events.map((event) => event.type);
const ofType = (events: JsonObject[], type: string) => events.filter((event) => event.type === type);
const id = (prefix: string) => expect.stringMatching(new RegExp(`^${prefix}_[0-9a-f]{32}$`));
const repeat = (type: string, times: number) => Array.from({ length: times }, () => type);
/** A chunk of one choice (index 0) with `delta` and `finish` (a creation time, as a chat upstream sends). */
const chunk = (delta: JsonObject, finish: string | null = null): ChatStreamPart => ({
  type: 'chunk',
  chunk: { created: 1757936100, choices: [{ index: 0, delta, finish_reason: finish }] },
});

describe('chatStreamToResponsesEvents', () => {
  it('streams text as one message item and completes with the usage', async () => {
    const events = await translate(recordedParts('chat-chunks-text.json'));

    expect(types(events)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...repeat('response.output_text.delta', 16),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.every((event) => event.sequence_number === 0)).toBe(true);

    const text = 'Paris is 18°C and partly cloudy; Berlin is 14°C with light rain.';
    const deltas = ofType(events, 'response.output_text.delta');
    expect(deltas.map((event) => event.delta).join('')).toBe(text);
    const added = events[2];
    const itemId = stringMember(recordMember(added, 'item'), 'id');
    expect(added).toStrictEqual({
      type: 'response.output_item.added',
      sequence_number: 0,
      output_index: 0,
      item: { id: id('msg'), type: 'message', status: 'in_progress', content: [], role: 'assistant' },
    });
    expect(events[3]).toStrictEqual({
      type: 'response.content_part.added',
      sequence_number: 0,
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
    });
    expect(deltas[0]).toStrictEqual({
      type: 'response.output_text.delta',
      sequence_number: 0,
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      delta: 'Paris',
      logprobs: [],
    });
    expect(ofType(events, 'response.output_text.done')[0]).toMatchObject({ item_id: itemId, text });

    const message = { id: itemId, type: 'message', status: 'completed', role: 'assistant' };
    const content = [{ type: 'output_text', text, annotations: [], logprobs: [] }];
    expect(ofType(events, 'response.output_item.done')[0]?.item).toStrictEqual({ ...message, content });

    const created = recordMember(events[0], 'response');
    // Zeros until the end: OpenAI's schema takes no null `usage`, Open Responses requires the key.
    const zeroUsage = {
      input_tokens: 0,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 0,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 0,
    };
    expect(created).toMatchObject({ status: 'in_progress', output: [], completed_at: null });
    expect(created?.usage).toStrictEqual(zeroUsage);
    expect(created?.created_at).toBe(1757936001);
    const completed = recordMember(events.at(-1), 'response');
    expect(completed).toMatchObject({
      id: created?.id,
      status: 'completed',
      created_at: 1757936001,
      model: 'llama-3.3-70b-instruct',
      incomplete_details: null,
      output: [{ ...message, content }],
      usage: {
        input_tokens: 96,
        input_tokens_details: { cached_tokens: 64 },
        output_tokens: 17,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: 113,
      },
    });
  });

  it('sends interleaved tool calls one item after another, with whole arguments in order', async () => {
    const events = await translate(recordedParts('chat-chunks-interleaved-tool-calls.json'));

    expect(types(events)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      ...repeat('response.function_call_arguments.delta', 3),
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      ...repeat('response.function_call_arguments.delta', 2),
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);

    const added = ofType(events, 'response.output_item.added');
    expect(added.map((event) => event.output_index)).toStrictEqual([0, 1]);
    expect(added[0]?.item).toStrictEqual({
      id: id('fc'),
      type: 'function_call',
      status: 'in_progress',
      arguments: '',
      call_id: 'call_8KqzXn2fJ0aRvYb1',
      name: 'get_weather',
    });
    const ids = added.map((event) => stringMember(recordMember(event, 'item'), 'id'));
    const argumentsOf = (itemId: string | undefined) =>
      ofType(events, 'response.function_call_arguments.delta')
        .filter((event) => event.item_id === itemId)
        .map((event) => event.delta)
        .join('');
    expect(argumentsOf(ids[0])).toBe('{"city":"Paris","unit":"celsius"}');
    expect(argumentsOf(ids[1])).toBe('{"timezone":"Europe/Berlin"}');
    expect(ofType(events, 'response.function_call_arguments.done')).toStrictEqual([
      {
        type: 'response.function_call_arguments.done',
        sequence_number: 0,
        item_id: ids[0],
        output_index: 0,
        arguments: '{"city":"Paris","unit":"celsius"}',
        name: 'get_weather',
      },
      {
        type: 'response.function_call_arguments.done',
        sequence_number: 0,
        item_id: ids[1],
        output_index: 1,
        arguments: '{"timezone":"Europe/Berlin"}',
        name: 'get_time',
      },
    ]);

    const items = [
      {
        id: ids[0],
        type: 'function_call',
        status: 'completed',
        arguments: '{"city":"Paris","unit":"celsius"}',
        call_id: 'call_8KqzXn2fJ0aRvYb1',
        name: 'get_weather',
      },
      {
        id: ids[1],
        type: 'function_call',
        status: 'completed',
        arguments: '{"timezone":"Europe/Berlin"}',
        call_id: 'call_3WmPq9LtUe6sHc4d',
        name: 'get_time',
      },
    ];
    expect(ofType(events, 'response.output_item.done').map((event) => event.item)).toStrictEqual(items);
    expect(recordMember(events.at(-1), 'response')).toMatchObject({ status: 'completed', output: items });
  });

  it('ends with response.incomplete when the answer hit the token limit', async () => {
    const events = await translate(recordedParts('chat-chunks-length.json'));

    expect(types(events)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      ...repeat('response.output_text.delta', 8),
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.incomplete',
    ]);
    const text = 'Once upon a time, in a city';
    expect(ofType(events, 'response.output_text.done')[0]?.text).toBe(text);
    expect(recordMember(events.at(-1), 'response')).toMatchObject({
      status: 'incomplete',
      completed_at: null,
      incomplete_details: { reason: 'max_output_tokens' },
      output: [{ type: 'message', status: 'incomplete', content: [{ type: 'output_text', text }] }],
      usage: { input_tokens: 22, output_tokens: 8, total_tokens: 30 },
    });
  });

  it('marks only the last tool call incomplete when the calls hit the token limit', async () => {
    const parts = recordedParts('chat-chunks-interleaved-tool-calls.json').map((part): ChatStreamPart => {
      const choice = arrayMember(part.type === 'chunk' ? part.chunk : undefined, 'choices')?.[0];
      if (part.type !== 'chunk' || !isRecord(choice) || choice.finish_reason !== 'tool_calls') return part;
      return { type: 'chunk', chunk: { ...part.chunk, choices: [{ ...choice, finish_reason: 'length' }] } };
    });
    const events = await translate(parts);

    const statuses = ofType(events, 'response.output_item.done').map((event) =>
      stringMember(recordMember(event, 'item'), 'status'),
    );
    expect(statuses).toStrictEqual(['completed', 'incomplete']);
    expect(events.at(-1)?.type).toBe('response.incomplete');
  });

  // Bug: a chat upstream's `"arguments": ""` (a tool without parameters) reached Responses clients as "" in
  // `.done` and the item, where OpenAI always gives JSON: the openai SDK's strict tools threw on it. Blanks
  // streamed first (`" "`) made " {}": they now wait, and are dropped when nothing else comes.
  it.each([
    ['no argument text', ''],
    ['only blanks', ' \n'],
  ])('gives a call that got %s {}: one delta, .done and the item agree', async (_case, text) => {
    const call = {
      index: 0,
      id: 'call_t',
      type: 'function',
      function: { name: 'get_time', arguments: text },
    };
    const events = await translate([
      chunk({ role: 'assistant', content: null }),
      chunk({ tool_calls: [call] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: text } }] }),
      chunk({}, 'tool_calls'),
    ]);

    expect(
      ofType(events, 'response.function_call_arguments.delta').map((event) => event.delta),
    ).toStrictEqual(['{}']);
    expect(ofType(events, 'response.function_call_arguments.done')[0]).toMatchObject({
      arguments: '{}',
      name: 'get_time',
    });
    const done = recordMember(ofType(events, 'response.output_item.done')[0], 'item');
    expect(done).toMatchObject({ type: 'function_call', status: 'completed', arguments: '{}' });
    const completed = recordMember(events.at(-1), 'response');
    expect(arrayMember(completed, 'output')).toStrictEqual([done]);
  });

  it('drops blanks that came before the arguments (whitespace before JSON means nothing)', async () => {
    const call = { index: 0, id: 'call_t', type: 'function', function: { name: 'f', arguments: ' ' } };
    const events = await translate([
      chunk({ role: 'assistant', content: null }),
      chunk({ tool_calls: [call] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"a":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(
      ofType(events, 'response.function_call_arguments.delta').map((event) => event.delta),
    ).toStrictEqual(['{"a":', '1}']);
    expect(ofType(events, 'response.function_call_arguments.done')[0]).toMatchObject({
      arguments: '{"a":1}',
    });
  });

  it('gives blank arguments followed by the `{}` an adapter adds the same `{}` as a plain answer', async () => {
    const call = { index: 0, id: 'call_t', type: 'function', function: { name: 'f', arguments: '\n ' } };
    const events = await translate([
      chunk({ role: 'assistant', content: null, tool_calls: [call] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(ofType(events, 'response.function_call_arguments.delta').map((event) => event.delta)).toEqual([
      '{}',
    ]);
    expect(recordMember(ofType(events, 'response.output_item.done')[0], 'item')).toMatchObject({
      arguments: '{}',
    });
  });

  it('gives a call the upstream sent without an id a call_id of its own, the same in every event', async () => {
    const call = (name: string, index: number) => ({
      index,
      type: 'function',
      function: { name, arguments: '{}' },
    });
    const events = await translate([
      chunk({ role: 'assistant', content: null, tool_calls: [call('f', 0), call('g', 1)] }),
      chunk({}, 'tool_calls'),
    ]);
    const callIds = (type: string) =>
      ofType(events, type).map((event) => recordMember(event, 'item')?.call_id);
    const added = callIds('response.output_item.added');
    const done = callIds('response.output_item.done');
    expect(added).toHaveLength(2);
    for (const id of added) expect(id).toMatch(/^call_/);
    expect(new Set(added).size).toBe(2);
    expect(done).toEqual(added);
  });

  it('closes the text item before a tool call that follows it', async () => {
    const call = {
      index: 0,
      id: 'call_x',
      type: 'function',
      function: { name: 'get_time', arguments: '{}' },
    };
    const events = await translate([
      chunk({ role: 'assistant', content: 'Checking.' }),
      chunk({ tool_calls: [call] }),
      chunk({}, 'tool_calls'),
    ]);

    expect(types(events)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(ofType(events, 'response.output_item.added').map((event) => event.output_index)).toStrictEqual([
      0, 1,
    ]);
    const completed = recordMember(events.at(-1), 'response');
    expect(arrayMember(completed, 'output')?.map((item) => stringMember(item, 'type'))).toStrictEqual([
      'message',
      'function_call',
    ]);
    // No usage part came: the usage is zero rather than missing.
    expect(completed?.usage).toMatchObject({ input_tokens: 0, output_tokens: 0, total_tokens: 0 });
  });

  // Bug (compat cell responses|anthropic|reasoning-tools): the streamed answer had no reasoning item either.
  it('sends Claude’s signed thinking as a reasoning item before the text and the call', async () => {
    const thinking = { type: 'thinking', thinking: 'Call the tool.', signature: 'sig_1' };
    const call = { index: 0, id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    const events = await translate([
      chunk({ role: 'assistant', reasoning_content: 'Call the tool.' }),
      chunk({ thinking_blocks: [thinking] }),
      chunk({ content: 'Let me check.' }),
      chunk({ tool_calls: [call] }),
      chunk({}, 'tool_calls'),
    ]);
    expect(types(events).slice(0, 6)).toStrictEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    const reasoning = recordMember(events[3], 'item');
    expect(events[3]?.output_index).toBe(0);
    expect(reasoning).toMatchObject({ id: id('rs'), type: 'reasoning', summary: [] });
    expect(reasoning ? thinkingBlocksOf(reasoning) : undefined).toStrictEqual([thinking]);
    const completed = recordMember(events.at(-1), 'response');
    expect(arrayMember(completed, 'output')?.map((item) => stringMember(item, 'type'))).toStrictEqual([
      'reasoning',
      'message',
      'function_call',
    ]);
    expect(arrayMember(completed, 'output')?.[0]).toStrictEqual(reasoning);
  });

  // Bug: streamed reasoning text (Gemini's thought summaries, DeepSeek's and vLLM's reasoning_content) was
  // dropped though the request asked for a summary: no reasoning item, no response.reasoning_summary_* events.
  describe('with a reasoning summary asked for', () => {
    const ASKED = { ...REQUEST, reasoning: { effort: 'low', summary: 'auto' } };

    it('streams reasoning_content as the summary of a reasoning item, before the message, as OpenAI does', async () => {
      const events = await translate(
        [
          chunk({ role: 'assistant', content: '' }),
          chunk({ reasoning_content: 'The user greets; ' }),
          chunk({ reasoning_content: 'greet back.' }),
          chunk({ content: 'Hi!' }),
          chunk({}, 'stop'),
        ],
        ASKED,
      );
      expect(types(events)).toStrictEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.reasoning_summary_part.added',
        'response.reasoning_summary_text.delta',
        'response.reasoning_summary_text.delta',
        'response.reasoning_summary_text.done',
        'response.reasoning_summary_part.done',
        'response.output_item.done',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ]);
      const text = 'The user greets; greet back.';
      const itemId = recordMember(events[2], 'item')?.id;
      expect(events[2]).toMatchObject({
        output_index: 0,
        item: { id: id('rs'), type: 'reasoning', summary: [] },
      });
      expect(recordMember(events[2], 'item')).not.toHaveProperty('encrypted_content');
      const summaryEvents = events.slice(3, 8);
      for (const event of summaryEvents) {
        expect(event).toMatchObject({ item_id: itemId, output_index: 0, summary_index: 0 });
      }
      expect(summaryEvents.map((event) => event.part ?? event.delta ?? event.text)).toStrictEqual([
        { type: 'summary_text', text: '' },
        'The user greets; ',
        'greet back.',
        text,
        { type: 'summary_text', text },
      ]);
      const reasoning = { id: itemId, type: 'reasoning', summary: [{ type: 'summary_text', text }] };
      expect(events[8]).toMatchObject({ output_index: 0 });
      expect(events[8]?.item).toStrictEqual(reasoning);
      expect(events[9]).toMatchObject({ output_index: 1, item: { type: 'message' } });
      const output = arrayMember(recordMember(events.at(-1), 'response'), 'output');
      expect(output?.[0]).toStrictEqual(reasoning);
      expect(output?.[1]).toMatchObject({ type: 'message', content: [{ type: 'output_text', text: 'Hi!' }] });
    });

    it('reads `reasoning` deltas (OpenRouter) and reasoning in the role chunk (cache replay) alike', async () => {
      const events = await translate(
        [
          chunk({ role: 'assistant', content: '', reasoning_content: 'Replayed.' }),
          chunk({ reasoning: ' And more.' }),
          chunk({ content: 'Hi' }, 'stop'),
        ],
        ASKED,
      );
      expect(ofType(events, 'response.reasoning_summary_text.done')).toMatchObject([
        { text: 'Replayed. And more.' },
      ]);
    });

    it('gives Claude’s thinking and its signature one reasoning item, its text the summary', async () => {
      const thinking = { type: 'thinking', thinking: 'Call the tool.', signature: 'sig_1' };
      const redacted = { type: 'redacted_thinking', data: 'opaque' };
      const events = await translate(
        [
          chunk({ role: 'assistant', reasoning_content: 'Call ' }),
          chunk({ reasoning_content: 'the tool.' }),
          chunk({ thinking_blocks: [thinking] }),
          chunk({ thinking_blocks: [redacted] }),
          chunk({ content: 'Let me check.' }, 'stop'),
        ],
        ASKED,
      );
      const done = ofType(events, 'response.output_item.done').map((event) => recordMember(event, 'item'));
      expect(done.map((item) => [item?.type, arrayMember(item, 'summary')])).toStrictEqual([
        ['reasoning', [{ type: 'summary_text', text: 'Call the tool.' }]],
        ['reasoning', []],
        ['message', undefined],
      ]);
      expect(done[0] ? thinkingBlocksOf(done[0]) : undefined).toStrictEqual([thinking]);
      expect(done[1] ? thinkingBlocksOf(done[1]) : undefined).toStrictEqual([redacted]);
      expect(ofType(events, 'response.output_item.added').map((event) => event.output_index)).toStrictEqual([
        0, 1, 2,
      ]);
      expect(ofType(events, 'response.reasoning_summary_part.added')).toHaveLength(1);
    });

    it('starts a new reasoning item for reasoning text after the message', async () => {
      const events = await translate(
        [
          chunk({ reasoning_content: 'First.' }),
          chunk({ content: 'Hi' }),
          chunk({ reasoning_content: 'Then.' }),
        ],
        ASKED,
      );
      const output = arrayMember(recordMember(events.at(-1), 'response'), 'output');
      expect(output?.map((item) => stringMember(item, 'type'))).toStrictEqual([
        'reasoning',
        'message',
        'reasoning',
      ]);
      expect(ofType(events, 'response.reasoning_summary_text.delta')).toMatchObject([
        { output_index: 0, delta: 'First.' },
        { output_index: 2, delta: 'Then.' },
      ]);
    });

    it('marks reasoning cut short by the token limit incomplete, its summary closed', async () => {
      const events = await translate([chunk({ reasoning_content: 'Still' }, 'length')], ASKED);
      expect(types(events).slice(2)).toStrictEqual([
        'response.output_item.added',
        'response.reasoning_summary_part.added',
        'response.reasoning_summary_text.delta',
        'response.reasoning_summary_text.done',
        'response.reasoning_summary_part.done',
        'response.output_item.done',
        'response.incomplete',
      ]);
      expect(ofType(events, 'response.output_item.done')[0]?.item).toMatchObject({
        type: 'reasoning',
        status: 'incomplete',
        summary: [{ type: 'summary_text', text: 'Still' }],
      });
    });
  });

  it('sends no reasoning item for reasoning text without signed blocks (other providers)', async () => {
    const events = await translate([chunk({ reasoning_content: 'hmm' }), chunk({ content: 'Hi' }, 'stop')]);
    const completed = recordMember(events.at(-1), 'response');
    expect(arrayMember(completed, 'output')?.map((item) => stringMember(item, 'type'))).toStrictEqual([
      'message',
    ]);
  });

  it('streams a refusal as a refusal content part', async () => {
    const chunk = (delta: JsonObject, finish: string | null = null): ChatStreamPart => ({
      type: 'chunk',
      chunk: { choices: [{ index: 0, delta, finish_reason: finish }] },
    });
    const events = await translate([
      chunk({ role: 'assistant', content: null, refusal: "I can't" }),
      chunk({ refusal: ' help with that.' }),
      chunk({}, 'stop'),
    ]);

    expect(types(events).slice(2, -1)).toStrictEqual([
      'response.output_item.added',
      'response.content_part.added',
      'response.refusal.delta',
      'response.refusal.delta',
      'response.refusal.done',
      'response.content_part.done',
      'response.output_item.done',
    ]);
    expect(ofType(events, 'response.refusal.done')[0]?.refusal).toBe("I can't help with that.");
    expect(ofType(events, 'response.output_item.done')[0]?.item).toMatchObject({
      content: [{ type: 'refusal', refusal: "I can't help with that." }],
    });
  });

  it('sends no event before the upstream sends its first part', async () => {
    const upstream = new ReadableStream<ChatStreamPart>({
      start(controller) {
        controller.error(new Error('upstream refused'));
      },
    });
    const events: unknown[] = [];
    const reading = (async () => {
      for await (const part of upstream.pipeThrough(chatStreamToResponsesEvents(REQUEST))) events.push(part);
    })();
    await expect(reading).rejects.toThrow('upstream refused');
    expect(events).toStrictEqual([]);
  });

  // Bug: a stream without a usage chunk was settled with empty usage (billed 0, no warning); the terminal
  // part must say that no usage came, so that the endpoint bills what it counted.
  it('hands the terminal event the upstream usage, or an explicit undefined when none came', async () => {
    const chunk = (delta: JsonObject, finish: string | null = null): ChatStreamPart => ({
      type: 'chunk',
      chunk: { choices: [{ index: 0, delta, finish_reason: finish }] },
    });
    const partsOf = async (parts: ChatStreamPart[]) => {
      const upstream = new ReadableStream<ChatStreamPart>({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        },
      });
      const out = [];
      for await (const part of upstream.pipeThrough(chatStreamToResponsesEvents(REQUEST))) out.push(part);
      return out;
    };
    const text = [chunk({ content: 'Hi' }), chunk({}, 'stop')];
    const without = await partsOf(text);
    expect(without.filter((part) => 'usage' in part)).toHaveLength(1);
    const last = without.at(-1);
    expect(last?.event.type).toBe('response.completed');
    expect(last && 'usage' in last).toBe(true);
    expect(last?.usage).toBeUndefined();
    const usage = { ...emptyUsage(), inputTokens: 3, outputTokens: 1 };
    const withUsage = await partsOf([...text, { type: 'usage', usage }]);
    expect(withUsage.at(-1)?.usage).toStrictEqual(usage);
  });

  // Bug: a streamed answer with n > 1 merged the text of choice 1 into the single message item.
  it('takes only the choice of index 0 into the Response', async () => {
    const chunk = (index: number, delta: JsonObject, finish: string | null = null): ChatStreamPart => ({
      type: 'chunk',
      chunk: { choices: [{ index, delta, finish_reason: finish }] },
    });
    const events = await translate([
      chunk(0, { role: 'assistant', content: 'A1 ' }),
      chunk(1, { role: 'assistant', content: 'B1 ' }),
      chunk(0, { content: 'A2' }),
      chunk(1, { content: 'B2' }),
      chunk(1, {}, 'length'),
      chunk(0, {}, 'stop'),
    ]);
    expect(ofType(events, 'response.output_text.delta').map((event) => event.delta)).toStrictEqual([
      'A1 ',
      'A2',
    ]);
    const completed = events.at(-1);
    expect(completed?.type).toBe('response.completed');
    expect(ofType(events, 'response.output_text.done')[0]?.text).toBe('A1 A2');
  });
});
