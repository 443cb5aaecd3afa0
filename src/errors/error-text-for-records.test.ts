import { describe, expect, it } from 'vitest';
import { upstreamStatusError } from '../providers/shared/upstream-errors.js';
import { badRequestQuoting } from './client-quote.js';
import { recordableErrorMessage, withoutUpstreamText } from './error-text-for-records.js';
import { badRequest } from './gateway-error.js';

const prompt = 'Summarise the confidential merger memo between Contoso and Fabrikam for me.';
const overloaded = upstreamStatusError(
  529,
  '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded, try later"}}',
  'claude-cloud',
);
const quoting = upstreamStatusError(
  500,
  JSON.stringify({ error: { message: `could not process: ${prompt}`, type: 'server_error' } }),
  'fast-cloud',
);
const callerFault = upstreamStatusError(422, '{"error":{"message":"bad tool schema"}}', 'fast-cloud');

describe('withoutUpstreamText', () => {
  it('keeps the gateway’s words and the vendor’s type, never its text', () => {
    expect(withoutUpstreamText(overloaded)).toBe('Provider claude-cloud answered 529 (overloaded_error)');
    expect(withoutUpstreamText(callerFault)).toBe('Provider fast-cloud answered 422');
  });

  it('returns errors without vendor text as they are', () => {
    expect(withoutUpstreamText(badRequest('model is required'))).toBe('model is required');
  });
});

describe('recordableErrorMessage', () => {
  it('keeps the scrubbed vendor words of an ordinary request', () => {
    expect(recordableErrorMessage(overloaded, { zdr: false, requestTexts: [prompt] })).toBe(
      'Provider claude-cloud answered 529: Overloaded, try later',
    );
  });

  it('keeps no vendor words for a zdr request', () => {
    expect(recordableErrorMessage(overloaded, { zdr: true })).toBe(
      'Provider claude-cloud answered 529 (overloaded_error)',
    );
  });

  it('keeps no vendor words that quote the request', () => {
    const message = recordableErrorMessage(quoting, { zdr: false, requestTexts: [prompt] });
    expect(message).toBe('Provider fast-cloud answered 500 (server_error)');
    expect(message).not.toContain('merger');
  });

  // Bug: a message quoting the client's values (a role holding prompt text) went to records whole, zdr or not.
  it("keeps no value of the client's request a gateway message quotes; the client is shown it, bounded", () => {
    const role = `Summarise the memo ${'x'.repeat(100)}`;
    const error = badRequestQuoting((quote) => `messages.0.role: ${quote(role)} is not a chat role`, 'x');
    expect(error.message).toBe(`messages.0.role: ${role.slice(0, 64)}… is not a chat role`);
    for (const zdr of [false, true]) {
      expect(recordableErrorMessage(error, { zdr })).toBe(
        'messages.0.role: (a value of the request) is not a chat role',
      );
    }
    expect(withoutUpstreamText(error)).toBe('messages.0.role: (a value of the request) is not a chat role');
  });

  it('never keeps more than 300 characters (contract §4)', () => {
    const long = badRequest('x'.repeat(5_000));
    expect(recordableErrorMessage(long, { zdr: false }).length).toBe(300);
  });
});
