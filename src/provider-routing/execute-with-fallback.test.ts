import { describe, expect, it } from 'vitest';
import { compilePricing } from '../accounting/compile-pricing.js';
import type { ResolvedEndpoint } from '../catalog/catalog.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { UpstreamCall } from '../providers/provider-adapter.js';
import {
  upstreamInvalid,
  upstreamStatusError,
  upstreamTimeout,
  upstreamUnreachable,
} from '../providers/shared/upstream-errors.js';
import type { AttemptRecord } from './attempt-record.js';
import { allFailed, executeWithFallback } from './execute-with-fallback.js';

function endpoint(id: string, timeoutMs?: number): ResolvedEndpoint {
  return {
    provider: id,
    modelId: 'acme/m',
    model: `m-${id}`,
    pricing: {},
    compiledPricing: compilePricing({}),
    maxOutputTokens: 100,
    providerConfig: {
      id,
      api: 'openai',
      baseUrl: 'http://x/v1',
      zdr: false,
      timeoutMs,
      supportsSet: new Set(),
    },
  };
}

const plan = ['a', 'b', 'c'].map((id) => endpoint(id));
const rateLimited = (id: string, retryAfter?: string) =>
  upstreamStatusError(429, '{"error":{"message":"slow down","code":"rate_limit_exceeded"}}', id, {
    retryAfter,
  });

/** Runs the executor where `outcome(provider)` is each attempt's value or thrown error. */
async function execute(
  outcome: (provider: string, call: UpstreamCall) => string | Error,
  options: { signal?: AbortSignal; endpoints?: ResolvedEndpoint[] } = {},
) {
  const seen: { attempt: AttemptRecord; error: GatewayError | undefined }[] = [];
  const calls: UpstreamCall[] = [];
  let clock = 0;
  const promise = executeWithFallback({
    plan: options.endpoints ?? plan,
    run: async (target, call) => {
      calls.push(call);
      clock += 10;
      const result = outcome(target.provider, call);
      if (result instanceof Error) throw result;
      return result;
    },
    signal: options.signal ?? new AbortController().signal,
    requestId: 'req_1',
    defaultTimeoutMs: 5_000,
    onAttempt: (attempt, error) => seen.push({ attempt, error }),
    now: () => clock,
  });
  const result = await promise.then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error: error as GatewayError }),
  );
  return { ...result, seen, calls };
}

describe('executeWithFallback', () => {
  it('tries the plan in order and stops at the first success', async () => {
    const { value, seen, calls } = await execute((p) => (p === 'b' ? 'from b' : upstreamTimeout(p, 5)));
    expect(value).toMatchObject({ value: 'from b', endpoint: { provider: 'b' } });
    expect(calls.map((call) => call.provider.id)).toEqual(['a', 'b']);
    expect(seen.map(({ attempt }) => [attempt.provider, attempt.outcome])).toEqual([
      ['a', 'timeout'],
      ['b', 'success'],
    ]);
    expect(seen[0]?.attempt.durationMs).toBe(10);
  });

  it('gives each attempt its provider, model and timeout (the provider’s own, else the default)', async () => {
    const endpoints = [endpoint('a', 250), endpoint('b')];
    const { calls } = await execute(() => upstreamTimeout('x', 1), { endpoints });
    expect(calls.map((call) => [call.upstreamModel, call.timeoutMs, call.requestId])).toEqual([
      ['m-a', 250, 'req_1'],
      ['m-b', 5_000, 'req_1'],
    ]);
  });

  it('stops at a non-retryable error and throws it as it is', async () => {
    const invalid = upstreamStatusError(400, '{"error":{"message":"bad"}}', 'a');
    const { error, calls } = await execute(() => invalid);
    expect(error).toBe(invalid);
    expect(calls).toHaveLength(1);
  });

  it('all failed: 502 upstream_error listing every attempt, with the last upstream’s facts', async () => {
    const { error } = await execute((p) =>
      p === 'c'
        ? upstreamStatusError(
            529,
            '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
            p,
          )
        : upstreamStatusError(500, '{"error":{"message":"boom"}}', p),
    );
    expect(error).toMatchObject({
      status: 502,
      code: null,
      type: 'upstream_error',
      provider: 'c',
      upstreamStatus: 529,
      upstreamType: 'overloaded_error',
    });
    expect(error?.message).toBe(
      'All 3 provider attempts failed; the last: Provider c answered 529: Overloaded',
    );
    expect(error?.attempts?.map((a) => [a.provider, a.outcome, a.status, a.error])).toEqual([
      ['a', 'error', 500, 'Provider a answered 500'],
      ['b', 'error', 500, 'Provider b answered 500'],
      ['c', 'error', 529, 'Provider c answered 529 (overloaded_error)'],
    ]);
  });

  it('all timed out: 504 upstream_timeout', async () => {
    const { error } = await execute((p) => upstreamTimeout(p, 5));
    expect(error).toMatchObject({ status: 504, type: 'upstream_timeout' });
    expect(error?.attempts?.map((a) => a.outcome)).toEqual(['timeout', 'timeout', 'timeout']);
  });

  it('all rate limited: 429 TOO_MANY_REQUESTS with the smallest retry-after, rounded up to seconds', async () => {
    const waits: Record<string, string | undefined> = { a: '30', b: '1.2', c: undefined };
    const { error } = await execute((p) => rateLimited(p, waits[p]));
    expect(error).toMatchObject({
      status: 429,
      code: 'TOO_MANY_REQUESTS',
      type: 'upstream_rate_limited',
      retryAfterMs: 1_200,
      headers: { 'retry-after': '2' },
      upstreamType: 'rate_limit_exceeded',
    });
    expect(error?.toBody().error).toMatchObject({ code: 'TOO_MANY_REQUESTS', type: 'upstream_rate_limited' });
  });

  it('all rate limited without any retry-after: 429 without the header', async () => {
    const { error } = await execute((p) => rateLimited(p));
    expect(error).toMatchObject({ status: 429, type: 'upstream_rate_limited', headers: undefined });
  });

  it('some rate limited, one not: 502', async () => {
    const { error } = await execute((p) => (p === 'b' ? upstreamTimeout(p, 5) : rateLimited(p, '3')));
    expect(error).toMatchObject({ status: 502, type: 'upstream_error', headers: undefined });
  });

  it('a cancelled request stops before the next attempt and says cancelled', async () => {
    const controller = new AbortController();
    const { error, calls, seen } = await execute(
      (p) => {
        controller.abort();
        return upstreamTimeout(p, 5);
      },
      { signal: controller.signal },
    );
    expect(error).toMatchObject({ type: 'request_cancelled', status: 499 });
    expect(calls).toHaveLength(1);
    expect(seen.map(({ attempt }) => attempt.outcome)).toEqual(['cancelled']);
  });

  it('an already aborted request makes no attempt', async () => {
    const controller = new AbortController();
    controller.abort();
    const { error, calls } = await execute(() => 'never', { signal: controller.signal });
    expect(error?.type).toBe('request_cancelled');
    expect(calls).toHaveLength(0);
  });

  it('keeps the vendor’s words out of the attempt list but in the single-attempt message', async () => {
    const secretish = upstreamStatusError(503, '{"error":{"message":"node eu-3 is down"}}', 'a');
    const { error } = await execute(() => secretish, { endpoints: [endpoint('a')] });
    expect(error?.message).toBe('Provider a answered 503: node eu-3 is down');
    expect(error?.attempts?.[0]?.error).toBe('Provider a answered 503');
  });
});

describe('allFailed', () => {
  it('with no attempt at all is a 502', () => {
    expect(allFailed([], [])).toMatchObject({ status: 502, type: 'upstream_error' });
  });

  it('turns an unexpected thrown value into a record without leaking it', async () => {
    const { error } = await execute(() => new Error('internal detail'), { endpoints: [endpoint('a')] });
    expect(error).toMatchObject({ status: 500, code: 'INTERNAL_SERVER_ERROR' });
  });
});

describe('executeWithFallback: retries', () => {
  const unreachable = (id: string) => upstreamUnreachable(id, new Error('connect ECONNREFUSED'));
  const serverError = (id: string, status = 503) =>
    upstreamStatusError(status, '{"error":{"message":"busy"}}', id);

  function withRetries(id: string, retries: number | undefined): ResolvedEndpoint {
    const base = endpoint(id);
    return { ...base, providerConfig: { ...base.providerConfig, retries } };
  }

  /** Runs with a retry policy whose sleeper records the waits and advances the clock instead of waiting. */
  async function retrying(
    outcomes: Record<string, (string | Error)[]>,
    options: {
      endpoints?: ResolvedEndpoint[];
      deadline?: number;
      random?: number;
      abortInSleep?: boolean;
    } = {},
  ) {
    const seen: AttemptRecord[] = [];
    const waits: number[] = [];
    const controller = new AbortController();
    let clock = 0;
    const result = await executeWithFallback({
      plan: options.endpoints ?? [withRetries('a', undefined), withRetries('b', undefined)],
      run: async (target) => {
        clock += 10;
        const next = outcomes[target.provider]?.shift() ?? 'ok';
        if (next instanceof Error) throw next;
        return `${target.provider}:${next}`;
      },
      signal: controller.signal,
      requestId: 'req_1',
      defaultTimeoutMs: 5_000,
      onAttempt: (attempt) => seen.push(attempt),
      now: () => clock,
      retry: {
        baseMs: 100,
        maxMs: 250,
        deadline: options.deadline ?? 10_000,
        random: () => options.random ?? 0.5,
        sleep: async (ms) => {
          waits.push(ms);
          clock += ms;
          if (options.abortInSleep) {
            controller.abort();
            throw new Error('aborted');
          }
        },
      },
    }).then(
      (value) => ({ value: value.value, error: undefined }),
      (error: unknown) => ({ value: undefined, error: error as GatewayError }),
    );
    const summary = seen.map((a) => [a.provider, a.outcome, a.retry ?? 0, a.retryReason ?? '']);
    return { ...result, seen, summary, waits };
  }

  it('a connection error is retried once on the same provider (default retries 1), then succeeds', async () => {
    const { value, summary, waits } = await retrying({ a: [unreachable('a')] });
    expect(value).toBe('a:ok');
    expect(summary).toEqual([
      ['a', 'error', 0, ''],
      ['a', 'success', 1, 'upstream_error'],
    ]);
    // Equal jitter: half the cap plus random (0.5) times the other half of 100 ms.
    expect(waits).toEqual([75]);
  });

  it('a 5xx is retried with its status as the reason; two failures move on to the next provider', async () => {
    const { value, summary } = await retrying({ a: [serverError('a'), serverError('a', 500)] });
    expect(value).toBe('b:ok');
    expect(summary).toEqual([
      ['a', 'error', 0, ''],
      ['a', 'error', 1, 'upstream_error 503'],
      ['b', 'success', 0, ''],
    ]);
  });

  it.each([
    ['a 429', () => rateLimited('a')],
    ['a timeout', () => upstreamTimeout('a', 5)],
    ['an unreadable answer', () => upstreamInvalid('a', 'not JSON')],
  ])('%s is not retried: the next provider is tried at once', async (_name, error) => {
    const { value, summary, waits } = await retrying({ a: [error()] });
    expect(value).toBe('b:ok');
    expect(summary.map(([provider]) => provider)).toEqual(['a', 'b']);
    expect(waits).toEqual([]);
  });

  it('a caller error is neither retried nor failed over', async () => {
    const { error, summary } = await retrying({
      a: [upstreamStatusError(400, '{"error":{"message":"bad"}}', 'a')],
    });
    expect(error?.status).toBe(400);
    expect(summary).toHaveLength(1);
  });

  it('waits grow exponentially with jitter, bounded by maxMs, up to the provider’s retries', async () => {
    const endpoints = [withRetries('a', 3)];
    const failures = { a: [unreachable('a'), unreachable('a'), unreachable('a'), unreachable('a')] };
    const { error, waits, summary } = await retrying(failures, { endpoints, random: 1 });
    expect(waits).toEqual([100, 200, 250]);
    expect(summary.map(([, , retry]) => retry)).toEqual([0, 1, 2, 3]);
    expect(error?.status).toBe(502);
    expect(error?.attempts).toHaveLength(4);
  });

  it('retries 0 never retries', async () => {
    const { summary } = await retrying(
      { a: [unreachable('a')] },
      { endpoints: [withRetries('a', 0), endpoint('b')] },
    );
    expect(summary.map(([provider]) => provider)).toEqual(['a', 'b']);
  });

  it('no retry whose wait would end past the deadline: the next provider is tried instead', async () => {
    const { summary, waits } = await retrying({ a: [unreachable('a')] }, { deadline: 50 });
    expect(summary.map(([provider]) => provider)).toEqual(['a', 'b']);
    expect(waits).toEqual([]);
  });

  it('no failover starts past the deadline: the request fails with the attempts made so far', async () => {
    const { error, summary } = await retrying({ a: [unreachable('a')] }, { deadline: 5 });
    expect(summary.map(([provider]) => provider)).toEqual(['a']);
    expect(error?.status).toBe(502);
  });

  it('a client that goes away during the wait cancels the request', async () => {
    const { error, summary } = await retrying({ a: [unreachable('a')] }, { abortInSleep: true });
    expect(error?.type).toBe('request_cancelled');
    expect(summary).toHaveLength(1);
  });

  it('without a retry policy nothing is retried', async () => {
    const { seen } = await execute((p) => (p === 'a' ? unreachable('a') : 'ok'), {
      endpoints: [withRetries('a', 3), endpoint('b')],
    });
    expect(seen.map(({ attempt }) => attempt.provider)).toEqual(['a', 'b']);
  });

  it('attempts name the gateway model and the provider’s own name', async () => {
    const { seen } = await retrying({});
    expect(seen[0]).toMatchObject({ provider: 'a', model: 'acme/m', upstreamModel: 'm-a' });
  });
});
