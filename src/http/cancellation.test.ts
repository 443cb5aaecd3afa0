import { describe, expect, it, vi } from 'vitest';
import { sleepFor } from '../provider-routing/retry-policy.js';
import { Cancellation } from './cancellation.js';

describe('Cancellation', () => {
  it('runs its abort listeners once, in order, with the reason readable; a removed one not at all', () => {
    const cancellation = new Cancellation();
    const calls: string[] = [];
    const first = () => calls.push(`first:${String(cancellation.reason)}`);
    const second = () => calls.push('second');
    const removed = () => calls.push('removed');
    cancellation.addEventListener('abort', first);
    cancellation.addEventListener('abort', first);
    cancellation.addEventListener('abort', removed);
    cancellation.addEventListener('abort', second, { once: true });
    cancellation.removeEventListener('abort', removed);
    expect(cancellation.aborted).toBe(false);
    cancellation.abort('gone');
    cancellation.abort('again');
    expect(cancellation.aborted).toBe(true);
    expect(cancellation.reason).toBe('gone');
    expect(calls).toEqual(['first:gone', 'second']);
    cancellation.addEventListener('abort', () => calls.push('late'));
    expect(calls).toEqual(['first:gone', 'second']);
  });

  it('aborts with an AbortError by default, as an AbortController does', () => {
    const cancellation = new Cancellation();
    cancellation.abort();
    const controller = new AbortController();
    controller.abort();
    expect(cancellation.reason).toBeInstanceOf(DOMException);
    expect((cancellation.reason as DOMException).name).toBe(controller.signal.reason.name);
  });

  it('runs the other listeners when one throws, and surfaces the error as an EventTarget does', () => {
    const deferred: (() => void)[] = [];
    const nextTick = vi.spyOn(process, 'nextTick').mockImplementation(((callback: () => void) => {
      deferred.push(callback);
    }) as typeof process.nextTick);
    try {
      const cancellation = new Cancellation();
      const after = vi.fn();
      cancellation.addEventListener('abort', () => {
        throw new Error('listener failed');
      });
      cancellation.addEventListener('abort', after);
      cancellation.abort();
      expect(after).toHaveBeenCalledOnce();
      expect(deferred).toHaveLength(1);
      expect(() => deferred[0]?.()).toThrow('listener failed');
    } finally {
      nextTick.mockRestore();
    }
  });

  it('makes a real AbortSignal on demand that follows it, before or after the abort', async () => {
    const early = new Cancellation();
    const signal = early.toAbortSignal();
    expect(early.toAbortSignal()).toBe(signal);
    expect(signal.aborted).toBe(false);
    early.abort('client left');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('client left');
    const late = new Cancellation();
    late.abort('before');
    expect(late.toAbortSignal().aborted).toBe(true);
    expect(late.toAbortSignal().reason).toBe('before');
  });

  it('cancels a retry wait (sleepFor), and lets one that ran out end without a listener left', async () => {
    const cancellation = new Cancellation();
    const waiting = sleepFor(60_000, cancellation);
    cancellation.abort(new Error('client left'));
    await expect(waiting).rejects.toThrow('client left');
    const done = new Cancellation();
    const remove = vi.spyOn(done, 'removeEventListener');
    await sleepFor(1, done);
    expect(remove).toHaveBeenCalledOnce();
    await expect(sleepFor(1, cancellation)).rejects.toThrow('client left');
  });
});
