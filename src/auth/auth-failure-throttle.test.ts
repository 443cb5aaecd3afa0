import { describe, expect, it } from 'vitest';
import { AuthFailureThrottle } from './auth-failure-throttle.js';

function setup(overrides: { burst?: number; maxAddresses?: number } = {}) {
  let now = 1_000_000;
  const lines: string[] = [];
  const throttle = new AuthFailureThrottle({
    burst: overrides.burst ?? 3,
    windowSeconds: 10,
    maxAddresses: overrides.maxAddresses ?? 100,
    log: (line) => lines.push(line),
    now: () => now,
  });
  return { throttle, lines, advance: (ms: number) => (now += ms) };
}

describe('AuthFailureThrottle', () => {
  it('throttles an address after burst failures within the window, for one window', () => {
    const { throttle, advance } = setup();
    throttle.recordFailure('10.0.0.1');
    throttle.recordFailure('10.0.0.1');
    expect(throttle.retryAfterSeconds('10.0.0.1')).toBeUndefined();
    throttle.recordFailure('10.0.0.1');
    expect(throttle.retryAfterSeconds('10.0.0.1')).toBe(10);
    expect(throttle.retryAfterSeconds('10.0.0.2')).toBeUndefined();
    advance(9_500);
    expect(throttle.retryAfterSeconds('10.0.0.1')).toBe(1);
    advance(500);
    expect(throttle.retryAfterSeconds('10.0.0.1')).toBeUndefined();
  });

  it('does not throttle failures spread over several windows', () => {
    const { throttle, advance } = setup();
    for (let i = 0; i < 10; i += 1) {
      throttle.recordFailure('10.0.0.1');
      advance(6_000);
    }
    expect(throttle.retryAfterSeconds('10.0.0.1')).toBeUndefined();
  });

  it('logs one line per throttled window with the count refused before, never more', () => {
    const { throttle, lines, advance } = setup();
    for (let i = 0; i < 50; i += 1) throttle.recordFailure('10.0.0.1');
    for (let i = 0; i < 7; i += 1) throttle.retryAfterSeconds('10.0.0.1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('10.0.0.1');
    advance(10_000);
    for (let i = 0; i < 3; i += 1) throttle.recordFailure('10.0.0.1');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('7 requests refused');
  });

  it('tracks at most maxAddresses, forgetting the oldest', () => {
    const { throttle } = setup({ maxAddresses: 50, burst: 1 });
    for (let i = 0; i < 1_000; i += 1) throttle.recordFailure(`10.0.${Math.floor(i / 256)}.${i % 256}`);
    expect(throttle.size).toBe(50);
    expect(throttle.retryAfterSeconds('10.0.3.231')).toBe(10);
    expect(throttle.retryAfterSeconds('10.0.0.0')).toBeUndefined();
  });
});
