import { describe, expect, it } from 'vitest';
import { parseConfig } from '../config/load-config.js';
import { promptForSpan } from './request-outcome.js';
import { noTracing, type Tracing } from './tracing.js';

const tracing: Tracing = { ...noTracing, enabled: true };
const sent = { messages: [{ role: 'user', content: 'hello there' }] };

describe('promptForSpan', () => {
  it('gives nothing unless the operator opted in', () => {
    expect(promptForSpan({ tracing, config: parseConfig({}, 'test') }, { zdr: false, sent })).toBeUndefined();
  });

  it('gives the prompt when opted in and traced, cut to maxContentChars', () => {
    const config = parseConfig({ tracing: { captureContent: true, maxContentChars: 20 } }, 'test');
    expect(promptForSpan({ tracing, config }, { zdr: false, sent })).toBe('[{"role":"user","con…');
    expect(promptForSpan({ tracing: noTracing, config }, { zdr: false, sent })).toBeUndefined();
  });

  it('never gives it for a zdr request', () => {
    const config = parseConfig({ tracing: { captureContent: true } }, 'test');
    expect(promptForSpan({ tracing, config }, { zdr: true, sent })).toBeUndefined();
  });
});
