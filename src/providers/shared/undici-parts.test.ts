import * as undici from 'undici';
import { describe, expect, it } from 'vitest';
import { Agent, errors } from './undici-parts.js';

describe('undici parts', () => {
  it('are the very classes the undici package exports (an upgrade that moves them fails here)', () => {
    expect(Agent).toBe(undici.Agent);
    expect(errors).toBe(undici.errors);
    expect(errors.HeadersTimeoutError).toBe(undici.errors.HeadersTimeoutError);
    expect(errors.ConnectTimeoutError).toBe(undici.errors.ConnectTimeoutError);
    expect(new Agent()).toBeInstanceOf(undici.Dispatcher);
    // The request API they attach is the package's own.
    expect(new Agent().request).toBe(undici.Dispatcher.prototype.request);
  });
});
