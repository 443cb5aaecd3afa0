import { describe, expect, it } from 'vitest';
import { clientCallId, upstreamCall, withUpstreamCallIds } from './call-id.js';

describe('Responses call ids of calls answered over chat', () => {
  const signed = { id: 'call_1', extra_content: { google: { thought_signature: 'sig/+=' } } };

  it('are the chat id for a call without a thought signature, both ways', () => {
    expect(clientCallId('call_1', { id: 'call_1' })).toBe('call_1');
    expect(upstreamCall('call_1')).toEqual({ id: 'call_1' });
  });

  it('carry a thought signature in call_gs_ form, and give it back', () => {
    const callId = clientCallId('call_1', signed);
    expect(callId).toMatch(/^call_gs_[A-Za-z0-9_-]+$/);
    expect(upstreamCall(callId)).toEqual({ id: 'call_1', thoughtSignature: 'sig/+=' });
  });

  it('leave a client id that only starts like one alone', () => {
    expect(upstreamCall('call_gs_abc')).toEqual({ id: 'call_gs_abc' });
  });
});

describe('a request for a native Responses provider', () => {
  it("gets the calls' own ids back in function_call and function_call_output items", () => {
    const callId = clientCallId('call_1', { extra_content: { google: { thought_signature: 's' } } });
    const input = [
      { role: 'user', content: 'hi' },
      { type: 'function_call', call_id: callId, name: 'f', arguments: '{}' },
      { type: 'function_call_output', call_id: callId, output: 'ok' },
      { type: 'function_call_output', call_id: 'call_gs_not-ours', output: 'ok' },
    ];
    const body = { model: 'm', input };
    expect(withUpstreamCallIds(body).input).toEqual([
      input[0],
      { ...input[1], call_id: 'call_1' },
      { ...input[2], call_id: 'call_1' },
      input[3],
    ]);
    expect(input[1]?.call_id).toBe(callId);
  });

  it('is the same body when no call id is the gateway’s', () => {
    const body = { model: 'm', input: [{ type: 'function_call_output', call_id: 'call_1', output: 'ok' }] };
    expect(withUpstreamCallIds(body)).toBe(body);
    const text = { model: 'm', input: 'hi' };
    expect(withUpstreamCallIds(text)).toBe(text);
  });
});
