import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyUsage } from '../../accounting/usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import type { ChatStreamPart } from '../../providers/provider-adapter.js';
import { usageFromChat } from '../shared/read-usage.js';
import {
  chatStreamToMessagesEvents,
  type MessagesStreamPart,
  messagesEventFrame,
} from './chat-stream-to-messages-events.js';
import type { MessageMeta } from './chat-to-messages.js';

/** A recorded chunk sequence as the chat adapter hands it on: chunks, and the usage chunk as a usage part. */
function recordedParts(path: string): ChatStreamPart[] {
  const parsed: unknown = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8'));
  const parts: ChatStreamPart[] = [];
  for (const chunk of Array.isArray(parsed) ? parsed : []) {
    if (!isRecord(chunk)) continue;
    const { usage, ...rest } = chunk;
    if ((arrayMember(chunk, 'choices') ?? []).length > 0) parts.push({ type: 'chunk', chunk: rest });
    if (isRecord(usage)) parts.push({ type: 'usage', usage: usageFromChat(usage) });
  }
  return parts;
}

const META: MessageMeta = { id: 'gen_1', model: 'acme/chat-large', stopSequences: [] };

const translate = (parts: ChatStreamPart[]) => translateWith(META, parts);

async function translateWith(meta: MessageMeta, parts: ChatStreamPart[]): Promise<MessagesStreamPart[]> {
  const upstream = new ReadableStream<ChatStreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  const out: MessagesStreamPart[] = [];
  for await (const part of upstream.pipeThrough(chatStreamToMessagesEvents(meta))) out.push(part);
  return out;
}

const eventsOf = (parts: MessagesStreamPart[]) => parts.map((part) => part.event);
/** `type`, with the block's index and the delta's type where they exist: `content_block_delta#1:input_json_delta`. */
const shapes = (events: JsonObject[]) =>
  events.map((event) => {
    const index = typeof event.index === 'number' ? `#${event.index}` : '';
    const delta = stringMember(recordMember(event, 'delta'), 'type');
    return `${String(event.type)}${index}${delta && event.type === 'content_block_delta' ? `:${delta}` : ''}`;
  });
const repeat = (shape: string, times: number) => Array.from({ length: times }, () => shape);

/** The concatenated delta text of one block. */
function blockText(events: JsonObject[], index: number, key: string): string {
  return events
    .filter((event) => event.type === 'content_block_delta' && event.index === index)
    .map((event) => stringMember(recordMember(event, 'delta'), key) ?? '')
    .join('');
}

/** The `toolu_` form a non-Anthropic tool-call id takes on the Messages ingress (see tool-use-id.ts). */
const toolu = (id: string): string => `toolu_gw_${Buffer.from(id).toString('base64url')}`;
const DIRECT = { type: 'direct' };
/** What the published Usage requires beyond the token counts, unknown through chat. */
const USAGE_REST = {
  cache_creation: null,
  output_tokens_details: { thinking_tokens: 0 },
  server_tool_use: { web_search_requests: 0, web_fetch_requests: 0 },
  inference_geo: null,
  service_tier: null,
};

const chunk = (delta: JsonObject, finishReason: string | null = null): ChatStreamPart => ({
  type: 'chunk',
  chunk: { object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finishReason }] },
});

describe('chatStreamToMessagesEvents', () => {
  it('streams text and two tool calls as three blocks, in Anthropic order, with usage at the end', async () => {
    const parts = await translate(recordedParts('./__fixtures__/chat-chunks-text-and-two-tool-calls.json'));
    const events = eventsOf(parts);

    expect(shapes(events)).toStrictEqual([
      'message_start',
      'content_block_start#0',
      ...repeat('content_block_delta#0:text_delta', 5),
      'content_block_stop#0',
      'content_block_start#1',
      ...repeat('content_block_delta#1:input_json_delta', 4),
      'content_block_stop#1',
      'content_block_start#2',
      ...repeat('content_block_delta#2:input_json_delta', 3),
      'content_block_stop#2',
      'message_delta',
      'message_stop',
    ]);
    expect(events[0]).toStrictEqual({
      type: 'message_start',
      message: {
        id: 'gen_1',
        type: 'message',
        role: 'assistant',
        model: 'acme/chat-large',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        container: null,
        usage: {
          input_tokens: 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          output_tokens: 0,
          ...USAGE_REST,
        },
      },
    });
    expect(events[1]).toStrictEqual({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'text', text: '', citations: null },
    });
    expect(blockText(events, 0, 'text')).toBe("I'll check both cities.");
    const starts = events.filter((event) => event.type === 'content_block_start').slice(1);
    expect(starts.map((event) => event.content_block)).toStrictEqual([
      {
        type: 'tool_use',
        id: toolu('call_8KqzXn2fJ0aRvYb1'),
        name: 'get_weather',
        input: {},
        caller: DIRECT,
      },
      {
        type: 'tool_use',
        id: toolu('call_3WmPq9LtUe6sHc4d'),
        name: 'get_weather',
        input: {},
        caller: DIRECT,
      },
    ]);
    expect(blockText(events, 1, 'partial_json')).toBe('{"city":"Paris","unit":"celsius"}');
    expect(blockText(events, 2, 'partial_json')).toBe('{"city":"Berlin","unit":"celsius"}');

    const delta = parts.at(-2);
    expect(delta?.event).toStrictEqual({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null, stop_details: null, container: null },
      usage: {
        input_tokens: 226,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 1024,
        output_tokens: 58,
        ...USAGE_REST,
      },
    });
    expect(delta?.usage).toMatchObject({ inputTokens: 1250, cachedInputTokens: 1024, outputTokens: 58 });
    expect(parts.filter((part) => part.usage !== undefined)).toHaveLength(1);
  });

  it('keeps interleaved tool-call fragments apart, one block after the other', async () => {
    const parts = await translate(
      recordedParts('../responses/__fixtures__/chat-chunks-interleaved-tool-calls.json'),
    );
    const events = eventsOf(parts);

    expect(shapes(events)).toStrictEqual([
      'message_start',
      'content_block_start#0',
      ...repeat('content_block_delta#0:input_json_delta', 3),
      'content_block_stop#0',
      'content_block_start#1',
      ...repeat('content_block_delta#1:input_json_delta', 2),
      'content_block_stop#1',
      'message_delta',
      'message_stop',
    ]);
    expect(JSON.parse(blockText(events, 0, 'partial_json'))).toStrictEqual({
      city: 'Paris',
      unit: 'celsius',
    });
    expect(JSON.parse(blockText(events, 1, 'partial_json'))).toStrictEqual({ timezone: 'Europe/Berlin' });
  });

  it('streams reasoning as a thinking block before the text, and a cut answer ends in max_tokens', async () => {
    const events = eventsOf(
      await translate([
        chunk({ role: 'assistant', reasoning_content: 'Short' }),
        chunk({ reasoning_content: ' answer.' }),
        chunk({ content: 'Once upon' }),
        chunk({}, 'length'),
      ]),
    );
    expect(shapes(events)).toStrictEqual([
      'message_start',
      'content_block_start#0',
      'content_block_delta#0:thinking_delta',
      'content_block_delta#0:thinking_delta',
      'content_block_stop#0',
      'content_block_start#1',
      'content_block_delta#1:text_delta',
      'content_block_stop#1',
      'message_delta',
      'message_stop',
    ]);
    expect(events[1]?.content_block).toStrictEqual({ type: 'thinking', thinking: '', signature: '' });
    expect(blockText(events, 0, 'thinking')).toBe('Short answer.');
    expect(recordMember(events.at(-2), 'delta')).toStrictEqual({
      stop_reason: 'max_tokens',
      stop_sequence: null,
      stop_details: null,
      container: null,
    });
  });

  // Bug (compat cell messages|anthropic|reasoning-tools): a streamed Claude answer's thinking block had no
  // signature, so the client could not send it back with the tool result and Anthropic answered 400.
  it('ends a thinking block with the signature_delta of its signed block, as Anthropic streams it', async () => {
    const signed = { type: 'thinking', thinking: 'Short answer.', signature: 'sig_1' };
    const call = { index: 0, id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{}' } };
    const events = eventsOf(
      await translate([
        chunk({ role: 'assistant', reasoning_content: 'Short' }),
        chunk({ reasoning_content: ' answer.' }),
        chunk({ thinking_blocks: [signed] }),
        chunk({ content: 'Let me check.' }),
        chunk({ tool_calls: [call] }),
        chunk({}, 'tool_calls'),
      ]),
    );
    expect(shapes(events).slice(0, 7)).toStrictEqual([
      'message_start',
      'content_block_start#0',
      'content_block_delta#0:thinking_delta',
      'content_block_delta#0:thinking_delta',
      'content_block_delta#0:signature_delta',
      'content_block_stop#0',
      'content_block_start#1',
    ]);
    expect(blockText(events, 0, 'thinking')).toBe('Short answer.');
    expect(blockText(events, 0, 'signature')).toBe('sig_1');
    expect(blockText(events, 1, 'text')).toBe('Let me check.');
  });

  it('sends a redacted_thinking block whole, and a signed block that came without text as its own', async () => {
    const events = eventsOf(
      await translate([
        chunk({ role: 'assistant', thinking_blocks: [{ type: 'redacted_thinking', data: 'opaque' }] }),
        chunk({ thinking_blocks: [{ type: 'thinking', thinking: 'Then this.', signature: 'sig_2' }] }),
        chunk({ content: 'Done.' }, 'stop'),
      ]),
    );
    expect(shapes(events).slice(1, 8)).toStrictEqual([
      'content_block_start#0',
      'content_block_stop#0',
      'content_block_start#1',
      'content_block_delta#1:thinking_delta',
      'content_block_delta#1:signature_delta',
      'content_block_stop#1',
      'content_block_start#2',
    ]);
    expect(events[1]?.content_block).toStrictEqual({ type: 'redacted_thinking', data: 'opaque' });
    expect(blockText(events, 1, 'thinking')).toBe('Then this.');
    expect(blockText(events, 1, 'signature')).toBe('sig_2');
  });

  it('sends no signature_delta for reasoning without a signed block (another provider)', async () => {
    const events = eventsOf(
      await translate([chunk({ reasoning_content: 'hmm' }), chunk({ content: 'x' }, 'stop')]),
    );
    expect(shapes(events)).not.toContain('content_block_delta#0:signature_delta');
  });

  // Bug (compat cell messages|anthropic|stop): the streamed answer ended in end_turn, stop_sequence null.
  it('names the stop sequence the finish chunk gives as matched_stop', async () => {
    const parts = await translateWith({ ...META, stopSequences: ['END'] }, [
      chunk({ content: 'Hi' }),
      {
        type: 'chunk',
        chunk: { choices: [{ index: 0, delta: {}, finish_reason: 'stop', matched_stop: 'END' }] },
      },
    ]);
    expect(eventsOf(parts).at(-2)?.delta).toStrictEqual({
      stop_reason: 'stop_sequence',
      stop_sequence: 'END',
      stop_details: null,
      container: null,
    });
  });

  it('waits for a tool name, and gives a call without id a toolu_ id', async () => {
    const events = eventsOf(
      await translate([
        chunk({ tool_calls: [{ index: 0, function: { arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { name: 'get_time', arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
      ]),
    );
    expect(events[1]).toStrictEqual({
      type: 'content_block_start',
      index: 0,
      content_block: {
        type: 'tool_use',
        id: expect.stringMatching(/^toolu_/),
        name: 'get_time',
        input: {},
        caller: DIRECT,
      },
    });
    expect(blockText(events, 0, 'partial_json')).toBe('{}');
  });

  it('still opens and closes the message when the upstream sent nothing', async () => {
    const parts = await translate([]);
    expect(shapes(eventsOf(parts))).toStrictEqual(['message_start', 'message_delta', 'message_stop']);
    expect(parts[1]?.event.delta).toStrictEqual({
      stop_reason: 'end_turn',
      stop_sequence: null,
      stop_details: null,
      container: null,
    });
    expect(parts[1]?.usage).toBeUndefined();
  });

  it('reports input tokens in message_start when the usage came first', async () => {
    const usage = { ...emptyUsage(), inputTokens: 40, cachedInputTokens: 8 };
    const events = eventsOf(await translate([{ type: 'usage', usage }, chunk({ content: 'x' }, 'stop')]));
    expect(recordMember(recordMember(events[0], 'message'), 'usage')).toMatchObject({
      input_tokens: 32,
      cache_read_input_tokens: 8,
    });
  });
});

describe('messagesEventFrame', () => {
  it('frames an event as `event: <type>` and its JSON', () => {
    expect(messagesEventFrame({ type: 'message_stop' })).toBe(
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
  });
});
