import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../errors/gateway-error.js';
import { listedParts, PulledParts } from '../providers/part-stream.js';
import type { UpstreamCall } from '../providers/provider-adapter.js';
import { MAX_HELD_PARTS, openStream } from './open-stream.js';

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
    expect(opened.held).toEqual([]);
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

  it('reads past parts that only announce the answer, up to the first that carries some of it', async () => {
    const opened = await openStream(
      Promise.resolve({ parts: listedParts(['role', 'usage', 'text', 'more']), warnings: [] }),
      call,
      announcing,
    );
    expect(opened.first).toEqual({ done: false, value: 'role' });
    expect(opened.held).toEqual([
      { done: false, value: 'usage' },
      { done: false, value: 'text' },
    ]);
    expect(opened.reader.take?.()).toEqual({ done: false, value: 'more' });
  });

  it('holds nothing when the first part already carries some of the answer', async () => {
    const opened = await openStream(
      Promise.resolve({ parts: listedParts(['text', 'role']), warnings: [] }),
      call,
      announcing,
    );
    expect(opened.first).toEqual({ done: false, value: 'text' });
    expect(opened.held).toEqual([]);
  });

  it('fails the attempt (and cancels the stream) when the upstream fails after announcing the answer', async () => {
    let cancelled = 0;
    let pulls = 0;
    const failing = new PulledParts<string>({
      pull: async (push) => {
        pulls += 1;
        if (pulls === 1) {
          push('role');
          return true;
        }
        throw new GatewayError('overloaded', { status: 529, code: null, type: 'upstream_error' });
      },
      cancel: async () => {
        cancelled += 1;
      },
    });
    const error = await openStream(Promise.resolve({ parts: failing, warnings: [] }), call, announcing).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).message).toBe('overloaded');
    expect(cancelled).toBe(1);
  });

  it('keeps the end of a stream that ended while announcing', async () => {
    const opened = await openStream(
      Promise.resolve({ parts: listedParts(['role', 'usage']), warnings: [] }),
      call,
      announcing,
    );
    expect(opened.held).toEqual([
      { done: false, value: 'usage' },
      { done: true, value: undefined },
    ]);
  });

  it(`holds at most ${MAX_HELD_PARTS} parts of an upstream that only ever announces`, async () => {
    const endless = new PulledParts<string>({
      pull: async (push) => {
        push('role');
        return true;
      },
      cancel: async () => undefined,
    });
    const opened = await openStream(Promise.resolve({ parts: endless, warnings: [] }), call, announcing);
    expect(opened.held).toHaveLength(MAX_HELD_PARTS);
    expect(opened.reader.take?.()).toBeUndefined();
  });
});

/** Test parts: `role` and `usage` only announce an answer. */
function announcing(part: string): boolean {
  return part === 'role' || part === 'usage';
}
