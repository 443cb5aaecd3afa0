import { describe, expect, it } from 'vitest';
import type { AppDeps } from '../app/app-deps.js';
import type { RequestContext } from '../http/request-context.js';
import type { GenerationRecord } from '../records/generation-record.js';
import { makeRecord } from '../store/store-contract.js';
import { createLogger } from './logger.js';
import { type ObservedRequest, observeRequest } from './observe-request.js';
import type { RequestSpan, SpanAttributes } from './tracing.js';

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

describe('the request span', () => {
  /** The attributes the span of a request with this record ends with. */
  function spanAttributesOf(record: GenerationRecord): SpanAttributes | undefined {
    let ended: SpanAttributes | undefined;
    const span: RequestSpan = {
      step: (_name, work) => work(),
      attempt: () => ({ headers: {}, end: () => undefined }),
      end: (attributes) => {
        ended = attributes;
      },
    };
    const logger = createLogger({
      level: 'info',
      format: 'json',
      terminal: false,
      destination: { write: () => 0 },
    });
    const deps = { now: () => 5, logger, log: () => undefined } as unknown as AppDeps;
    const ctx: ObservedRequest = {
      req: { method: 'POST' } as RequestContext['req'],
      requestId: 'req_1',
      receivedAt: 0,
      route: '/v1/chat/completions',
      res: { statusCode: 200 },
      outcome: { record, error: undefined, operation: 'chat', span, content: undefined },
    };
    observeRequest(deps, ctx, undefined);
    return ended;
  }

  it('says when the response cache answered (a hit has no upstream attempt to show it)', () => {
    const hit = spanAttributesOf(makeRecord({ cached: true, attempts: [], costNanoUsd: 0 }));
    expect(hit?.['gateway.cached']).toBe(true);
    const live = spanAttributesOf(makeRecord({ cached: false }));
    expect(live).toBeDefined();
    expect(live?.['gateway.cached']).toBeUndefined();
  });
});
