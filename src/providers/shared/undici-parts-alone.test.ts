import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { Agent } from './undici-parts.js';

// This file never imports the undici package's entry, so what it sees is what the parts alone give.
describe('undici parts without the package entry', () => {
  it('leave the entry unloaded and still give an agent the request API', () => {
    const loaded = Object.keys(createRequire(import.meta.url).cache);
    expect(loaded.some((file) => file.endsWith('/undici/lib/dispatcher/agent.js'))).toBe(true);
    expect(loaded.some((file) => file.endsWith('/undici/index.js'))).toBe(false);
    const agent = new Agent();
    expect(typeof agent.request).toBe('function');
    expect(typeof agent.stream).toBe('function');
  });
});
