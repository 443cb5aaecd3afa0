import { describe, expect, it } from 'vitest';
import { WARNINGS_HEADER_MAX_BYTES, warningsHeader } from './warnings.js';

const header = (warnings: string[]) => warningsHeader({}, warnings)['x-gateway-warnings'];

describe('warningsHeader', () => {
  it('adds nothing without warnings, and joins a few as they are', () => {
    expect(warningsHeader({ a: 'b' }, [])).toStrictEqual({ a: 'b' });
    expect(header(['one', 'two'])).toBe('one; two');
  });

  it('is one line of visible ASCII: … becomes ..., other characters ?', () => {
    expect(header(['tools of type xx… dropped', 'é\nß'])).toBe('tools of type xx... dropped; ???');
  });

  // Bug: an input item type of 20,000 characters made a header that fetch and the OpenAI SDK refuse
  // (UND_ERR_HEADERS_OVERFLOW), after the request was served and billed.
  it('stays within its bound, dropping whole warnings past it and counting them', () => {
    const warnings = Array.from({ length: 200 }, (_, index) => `warning ${index} ${'w'.repeat(80)}`);
    const value = header(warnings) ?? '';
    expect(value.length).toBeLessThanOrEqual(WARNINGS_HEADER_MAX_BYTES);
    const kept = value.split('; ').slice(0, -1);
    expect(kept.length).toBeGreaterThan(10);
    expect(kept).toStrictEqual(warnings.slice(0, kept.length));
    expect(value.endsWith(`; ...and ${warnings.length - kept.length} more`)).toBe(true);
  });

  it('counts a single warning over the bound rather than cutting it', () => {
    expect(header(['x'.repeat(20_000)])).toBe('...and 1 more');
    expect(header(['short', 'x'.repeat(20_000)])).toBe('short; ...and 1 more');
  });

  it('keeps warnings that fill the bound exactly', () => {
    const full = 'y'.repeat(WARNINGS_HEADER_MAX_BYTES);
    expect(header([full])).toBe(full);
  });
});
