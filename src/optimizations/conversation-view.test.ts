import { describe, expect, it } from 'vitest';
import { arrayMember, type JsonObject } from '../json/json.js';
import { deepFreeze } from './__fixtures__/deep-freeze.js';
import { applyConversationEdits } from './apply-conversation-edits.js';
import { latestUserPosition, viewConversation, WHOLE_CONTENT } from './conversation-view.js';
import { groupTurns } from './turn-groups.js';

const chatRequest: JsonObject = deepFreeze({
  model: 'acme/chat',
  temperature: 0.2,
  messages: [
    { role: 'developer', content: 'Answer briefly.' },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Weather in Paris and Berlin?' },
        { type: 'image_url', image_url: { url: 'https://example.com/map.png' } },
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      ],
    },
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
        { id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Berlin"}' } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: '18°C, partly cloudy' },
    { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '14°C, light rain' }] },
    { role: 'assistant', content: 'Paris 18°C, Berlin 14°C.' },
    { role: 'user', content: 'Thanks!' },
  ],
});

const responsesRequest: JsonObject = deepFreeze({
  model: 'acme/chat',
  instructions: 'You are a weather assistant.',
  input: [
    { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris?' }] },
    { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Need the weather tool.' }] },
    { type: 'function_call', call_id: 'fc_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'function_call_output', call_id: 'fc_1', output: '18°C' },
    { type: 'item_reference', id: 'msg_9' },
    {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'It is 18°C.', annotations: [] }],
    },
    { role: 'user', content: 'And tomorrow?' },
  ],
});

describe('viewConversation', () => {
  it('reads chat messages as turns with roles, texts, media, call and result ids', () => {
    const { turns } = viewConversation(chatRequest, 'chat');
    expect(turns.map((turn) => turn.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'tool',
      'assistant',
      'user',
    ]);
    expect(turns[1]?.media).toEqual([
      { part: 1, kind: 'image' },
      { part: 2, kind: 'audio' },
    ]);
    expect(turns[2]).toMatchObject({
      callIds: ['call_a', 'call_b'],
      calledTools: ['get_weather', 'get_weather'],
      text: 'get_weather {"city":"Paris"} get_weather {"city":"Berlin"}',
    });
    expect(turns[3]).toMatchObject({
      resultIds: ['call_a'],
      blocks: [{ part: WHOLE_CONTENT, text: '18°C, partly cloudy' }],
    });
    expect(turns[4]).toMatchObject({
      resultIds: ['call_b'],
      blocks: [{ part: 0, text: '14°C, light rain' }],
    });
    expect(latestUserPosition(turns)).toBe(6);
  });

  it('reads Responses items: messages, calls, outputs, reasoning and unknown items', () => {
    const view = viewConversation(responsesRequest, 'responses');
    expect(view.instructions).toBe('You are a weather assistant.');
    expect(view.turns.map((turn) => [turn.index, turn.role])).toEqual([
      [0, 'user'],
      [1, 'reasoning'],
      [2, 'assistant'],
      [3, 'tool'],
      [4, 'other'],
      [5, 'assistant'],
      [6, 'user'],
    ]);
    expect(view.turns[1]?.text).toBe('Need the weather tool.');
    expect(view.turns[2]).toMatchObject({ callIds: ['fc_1'], calledTools: ['get_weather'] });
    expect(view.turns[3]).toMatchObject({ resultIds: ['fc_1'], text: '18°C' });
  });

  it('reads a string Responses input as one user turn', () => {
    const { turns } = viewConversation({ input: 'Hello there' }, 'responses');
    expect(turns).toEqual([expect.objectContaining({ index: 0, role: 'user', text: 'Hello there' })]);
  });
});

describe('groupTurns', () => {
  it('groups a parallel tool call with all its results, and a reasoning item with the next item', () => {
    const chatGroups = groupTurns(viewConversation(chatRequest, 'chat').turns);
    expect(new Set([chatGroups[2], chatGroups[3], chatGroups[4]]).size).toBe(1);
    expect(new Set(chatGroups).size).toBe(5);
    const responsesGroups = groupTurns(viewConversation(responsesRequest, 'responses').turns);
    expect(new Set([responsesGroups[1], responsesGroups[2], responsesGroups[3]]).size).toBe(1);
    expect(new Set(responsesGroups).size).toBe(5);
  });
});

describe('applyConversationEdits', () => {
  it('drops, rewrites and replaces media in chat messages without touching the input', () => {
    const edits = new Map([
      [1, { placeholders: new Map([[1, '[image removed by the gateway]']]) }],
      [3, { texts: new Map([[WHOLE_CONTENT, 'short']]) }],
      [5, { drop: true }],
    ]);
    const result = applyConversationEdits(chatRequest, 'chat', edits);
    expect(result).toMatchObject({ model: 'acme/chat', temperature: 0.2 });
    const messages = arrayMember(result, 'messages') ?? [];
    expect(messages).toHaveLength(6);
    expect(messages[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'Weather in Paris and Berlin?' },
        { type: 'text', text: '[image removed by the gateway]' },
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      ],
    });
    expect(messages[3]).toEqual({ role: 'tool', tool_call_id: 'call_a', content: 'short' });
    expect(messages[5]).toEqual({ role: 'user', content: 'Thanks!' });
  });

  it('writes Responses placeholders as input_text and rewrites function_call_output strings', () => {
    const request = deepFreeze({
      input: [
        { role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] },
        { type: 'function_call_output', call_id: 'fc_1', output: 'long output' },
        { role: 'user', content: 'Next' },
      ],
    });
    const edits = new Map([
      [0, { placeholders: new Map([[0, '[image removed by the gateway]']]) }],
      [1, { texts: new Map([[WHOLE_CONTENT, 'short output']]) }],
    ]);
    expect(applyConversationEdits(request, 'responses', edits).input).toEqual([
      { role: 'user', content: [{ type: 'input_text', text: '[image removed by the gateway]' }] },
      { type: 'function_call_output', call_id: 'fc_1', output: 'short output' },
      { role: 'user', content: 'Next' },
    ]);
  });
});
