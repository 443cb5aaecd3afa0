import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../errors/gateway-error.js';
import { guardBody, readPrefix } from './guarded-body.js';
import type { UpstreamBody } from './upstream-client.js';

const idle = new GatewayError('idle', { status: 504, code: null, type: 'upstream_timeout', retryable: true });
const large = new GatewayError('large', { status: 502, code: null, type: 'upstream_error', retryable: true });

/** A Node readable as an UpstreamBody (undici's body is one). */
function nodeBody(readable: Readable): UpstreamBody {
  return Object.assign(readable, { text: async () => '' });
}

const guard = (body: UpstreamBody, maxBytes = 100) =>
  guardBody(body, { idleTimeoutMs: 1_000, maxBytes, idleError: () => idle, tooLargeError: () => large });

describe('guardBody', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fails a read that waits longer than the idle timeout, and destroys the body', async () => {
    const source = new Readable({ read() {} });
    source.push('first');
    const body = guard(nodeBody(source));
    const iterator = body[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    const pending = iterator.next();
    await vi.advanceTimersByTimeAsync(999);
    source.push('in time');
    expect((await pending).done).toBe(false);
    const silent = iterator.next().catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await silent).toBe(idle);
    expect(source.destroyed).toBe(true);
  });

  it('does not blame the upstream for a reader that is slow (no read waiting, no timer)', async () => {
    const body = guard(nodeBody(Readable.from([Buffer.from('a'), Buffer.from('b')])));
    const iterator = body[Symbol.asyncIterator]();
    expect((await iterator.next()).done).toBe(false);
    await vi.advanceTimersByTimeAsync(10_000);
    const next = await iterator.next();
    expect(Buffer.from(next.value ?? []).toString()).toBe('b');
    expect((await iterator.next()).done).toBe(true);
  });

  it('fails once more than maxBytes arrived, and destroys the body', async () => {
    const source = Readable.from([Buffer.alloc(60), Buffer.alloc(60)]);
    const body = guard(nodeBody(source));
    await expect(body.text()).rejects.toBe(large);
    expect(source.destroyed).toBe(true);
  });

  it('reads a body of exactly maxBytes whole', async () => {
    const body = guard(nodeBody(Readable.from([Buffer.from('x'.repeat(60)), Buffer.from('y'.repeat(40))])));
    expect(await body.text()).toBe(`${'x'.repeat(60)}${'y'.repeat(40)}`);
  });
});

describe('readPrefix', () => {
  it('reads at most the prefix and destroys the rest of the body', async () => {
    let produced = 0;
    const source = new Readable({
      read() {
        produced += 1;
        this.push(Buffer.alloc(1024, 'e'));
      },
    });
    const text = await readPrefix(nodeBody(source), 4096);
    expect(text).toBe('e'.repeat(4096));
    expect(source.destroyed).toBe(true);
    expect(produced).toBeLessThan(64);
  });

  it('yields what arrived when the body fails', async () => {
    const source = new Readable({ read() {} });
    source.push('partial');
    setImmediate(() => source.destroy(new Error('reset')));
    expect(await readPrefix(nodeBody(source), 4096)).toBe('partial');
  });
});
