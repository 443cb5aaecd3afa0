import { describe, expect, it } from 'vitest';
import { faultForLog } from './fault-for-log.js';
import { internalError } from './gateway-error.js';

const SECRET = 'Project-Falcon-words-nobody-may-log';

/**
 * V8's own error for a pattern it refuses: its message quotes the whole pattern (as for a term too large to
 * compile, whose size limit differs between V8 versions; an unterminated group is refused by all).
 */
function regexFault(): unknown {
  try {
    new RegExp(`(${SECRET}`, 'giu').test('');
  } catch (error) {
    return error;
  }
  throw new Error('expected V8 to refuse the pattern');
}

describe('faultForLog', () => {
  // bug: a 500's log line was String(error), which quoted the redact term the caller asked to hide
  it('keeps the name and the stack frames of an internal error, never its message', () => {
    const fault = regexFault();
    expect(String(fault)).toContain(SECRET);
    const text = faultForLog(fault);
    expect(text).not.toContain(SECRET);
    expect(text).toMatch(/^SyntaxError, message withheld; at /);
    expect(text).toContain('fault-for-log.test.ts');
  });

  it('drops message lines that look like frames', () => {
    const error = new TypeError(`bad\n    at ${SECRET} (x.js:1:1)`);
    expect(faultForLog(error)).not.toContain(SECRET);
  });

  it('keeps a short identifier code, and no frames when the stack does not start as V8 writes it', () => {
    const error = Object.assign(new Error(SECRET), { code: 'EEXIST' });
    error.stack = `${SECRET}\n    at ${SECRET} (x.js:1:1)`;
    expect(faultForLog(error)).toBe('Error (EEXIST), message withheld; no stack');
    expect(faultForLog(Object.assign(new Error('x'), { code: SECRET.repeat(3) }))).not.toContain(SECRET);
  });

  it('bounds the frames and keeps the message of the gateway own errors, cut', () => {
    const deep = (n: number): Error => (n === 0 ? new Error(SECRET) : deep(n - 1));
    expect(faultForLog(deep(30)).split('; ')).toHaveLength(1 + 8);
    const own = faultForLog(internalError(`No adapter for provider x.${'y'.repeat(400)}`));
    expect(own).toMatch(/^GatewayError \(INTERNAL_SERVER_ERROR\): No adapter for provider x\.y+…; at /);
  });

  it('shows the error a gateway error wraps, by name and frames only', () => {
    const text = faultForLog(internalError('The gateway failed.', regexFault()));
    expect(text).toMatch(
      /^GatewayError \(INTERNAL_SERVER_ERROR\): The gateway failed\.; at .*; caused by SyntaxError, message withheld; at /,
    );
    expect(text).not.toContain(SECRET);
  });

  it('never logs the value of a thrown non-Error', () => {
    expect(faultForLog(SECRET)).toBe('a thrown string (not an Error; its value is not logged)');
  });
});
