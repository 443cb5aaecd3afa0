import { describe, expect, it } from 'vitest';
import { clientCallId, upstreamCall } from './call-id.js';

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
