import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { listedParts, PulledParts } from '../providers/part-stream.js';
import type { UpstreamCall } from '../providers/provider-adapter.js';
import { openStream } from './open-stream.js';

const call = { provider: { id: 'p' }, timeoutMs: 1_000 } as unknown as UpstreamCall;

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('openStream', () => {
  it('takes a first part that is already in without arming the time-to-first-byte timer', async () => {
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const opened = await openStream(
      Promise.resolve({ parts: listedParts(['a', 'b']), warnings: ['w'] }),
      call,
    );
    expect(opened.first).toEqual({ done: false, value: 'a' });
    expect(opened.warnings).toEqual(['w']);
    expect(timers).not.toHaveBeenCalled();
    expect(opened.reader.take?.()).toEqual({ done: false, value: 'b' });
  });

  it('waits for a first part still to come, bounded by the time to first byte, and cancels the stream then', async () => {
    vi.useFakeTimers();
    let cancelled = 0;
    const never = new PulledParts<string>({
      pull: () => new Promise<boolean>(() => undefined),
      cancel: async () => {
        cancelled += 1;
      },
    });
    const opening = openStream(Promise.resolve({ parts: never, warnings: [] }), call);
    const failed = opening.then(
      () => undefined,
      (error: unknown) => error,
    );
    await vi.advanceTimersByTimeAsync(999);
    expect(cancelled).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    const error = await failed;
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(504);
    expect(cancelled).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
  });
});
