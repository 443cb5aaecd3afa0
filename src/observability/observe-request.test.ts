import { describe, expect, it } from 'vitest';
import type { AppDeps } from '../app/app-deps.js';
import type { RequestContext } from '../http/request-context.js';
import { observeRequest } from './observe-request.js';

describe('observeRequest', () => {
  it('never throws, and logs an internal failure without its message (which may quote the request)', () => {
    const lines: string[] = [];
    // Only what observing touches before it fails: the clock throws an error quoting request text.
    const deps = {
      now: () => {
        throw new TypeError('Cannot read "my secret prompt"');
      },
      log: (line: string) => lines.push(line),
    } as unknown as AppDeps;
    const ctx = { requestId: 'req_1', receivedAt: 0 } as unknown as RequestContext;
    expect(() => observeRequest(deps, ctx, undefined)).not.toThrow();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^observing request req_1 failed: TypeError, message withheld; at /);
    expect(lines[0]).not.toContain('secret');
  });
});
