import { describe, expect, it } from 'vitest';
import { arrayMember, stringMember } from '../../json/json.js';
import { messagesRequestToChat } from './messages-request-to-chat.js';
import { parseMessagesRequest } from './parse-messages-request.js';
import { toClientToolUseId, toUpstreamToolCall, toUpstreamToolCallId } from './tool-use-id.js';

describe('tool-use ids on the Messages ingress', () => {
  it('gives an OpenAI call id the toolu_ form and maps it back', () => {
    const client = toClientToolUseId('call_abc');
    expect(client).toMatch(/^toolu_[A-Za-z0-9_-]+$/);
    expect(client).not.toContain('call_abc');
    expect(toUpstreamToolCallId(client)).toBe('call_abc');
  });

  it('round-trips ids with any characters (Gemini-made, dotted, unicode)', () => {
    for (const id of ['get_weather:0', 'a.b/c+d=', 'call_é✓', 'x']) {
      const client = toClientToolUseId(id);
      expect(client).toMatch(/^toolu_[A-Za-z0-9_-]+$/);
      expect(toUpstreamToolCallId(client)).toBe(id);
    }
  });

  it('leaves Anthropic’s own ids alone both ways', () => {
    const id = 'toolu_01T1x1fJ34qAmk2tNTrN7Up6';
    expect(toClientToolUseId(id)).toBe(id);
    expect(toUpstreamToolCallId(id)).toBe(id);
  });

  it('leaves a client’s own id that merely looks encoded alone', () => {
    // Not what the encoder writes (padding-like bits differ), so it is not decoded.
    expect(toUpstreamToolCallId('toolu_gw_Y')).toBe('toolu_gw_Y');
    expect(toUpstreamToolCallId('toolu_gw_')).toBe('toolu_gw_');
  });
});

describe('tool-use ids that carry a Gemini thought signature', () => {
  it('carry the id and the signature in the toolu_ form, and give both back', () => {
    const signature = 'CiQB0e2Kb/+long signature==';
    const client = toClientToolUseId('call_abc', signature);
    expect(client).toMatch(/^toolu_gs_[A-Za-z0-9_-]+$/);
    expect(toUpstreamToolCall(client)).toEqual({ id: 'call_abc', thoughtSignature: signature });
    expect(toUpstreamToolCallId(client)).toBe('call_abc');
  });

  it('give no signature for ids without one, and leave ids that only look signed alone', () => {
    expect(toUpstreamToolCall(toClientToolUseId('call_abc'))).toEqual({ id: 'call_abc' });
    const notJson = `toolu_gs_${Buffer.from('call_abc').toString('base64url')}`;
    const oneMember = `toolu_gs_${Buffer.from('["call_abc"]').toString('base64url')}`;
    const notStrings = `toolu_gs_${Buffer.from('["call_abc",1]').toString('base64url')}`;
    for (const id of [notJson, oneMember, notStrings, 'toolu_gs_', 'toolu_gs_a.b']) {
      expect(toUpstreamToolCall(id)).toEqual({ id });
    }
  });

  it('reach the chat message as extra_content, and the tool result as the bare id', () => {
    const clientId = toClientToolUseId('call_abc', 'sig');
    const request = parseMessagesRequest({
      model: 'acme/chat-large',
      max_tokens: 10,
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: clientId, name: 'w', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: clientId, content: 'sunny' }] },
      ],
    });
    const messages = arrayMember(messagesRequestToChat(request).body, 'messages') ?? [];
    expect(messages[1]).toMatchObject({
      tool_calls: [{ id: 'call_abc', extra_content: { google: { thought_signature: 'sig' } } }],
    });
    expect(messages[2]).toMatchObject({ role: 'tool', tool_call_id: 'call_abc' });
  });
});

describe('tool-use ids across turns', () => {
  it('sends the upstream its own call id back, in the assistant turn and the tool result', () => {
    const clientId = toClientToolUseId('call_abc');
    const request = parseMessagesRequest({
      model: 'acme/chat-large',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'Time?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: clientId, name: 'now', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: clientId, content: '12:00' }] },
      ],
    });
    const messages = arrayMember(messagesRequestToChat(request).body, 'messages') ?? [];
    const assistant = messages.find((message) => stringMember(message, 'role') === 'assistant');
    const tool = messages.find((message) => stringMember(message, 'role') === 'tool');
    expect(stringMember(arrayMember(assistant, 'tool_calls')?.[0], 'id')).toBe('call_abc');
    expect(stringMember(tool, 'tool_call_id')).toBe('call_abc');
  });
});
