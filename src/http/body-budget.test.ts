import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BodyBudget, bodyBytesInFlight } from './body-budget.js';

/** An answer that closes when told. */
const answer = () => Object.assign(new EventEmitter(), { closed: false }) as unknown as ServerResponse;
const close = (res: ServerResponse) => {
  Object.assign(res, { closed: true });
  res.emit('close');
};

describe('BodyBudget', () => {
  it('counts each body as it grows, refuses what would pass the limit, and gives it back when its answer ends', () => {
    const budget = new BodyBudget(100);
    const first = answer();
    const countFirst = budget.counter(first);
    expect(countFirst(30)).toBe(true);
    expect(countFirst(60)).toBe(true);
    expect(budget.held).toBe(60);
    const second = answer();
    const countSecond = budget.counter(second);
    expect(countSecond(40)).toBe(true);
    // One byte more than the limit: refused, and nothing more counted.
    expect(countSecond(41)).toBe(false);
    expect(budget.held).toBe(100);
    close(first);
    expect(budget.held).toBe(40);
    expect(countSecond(100)).toBe(true);
    close(second);
    expect(budget.held).toBe(0);
  });

  it('does not count the body of an answer already over', () => {
    const budget = new BodyBudget(100);
    const res = answer();
    close(res);
    expect(budget.counter(res)(1_000)).toBe(true);
    expect(budget.held).toBe(0);
  });
});

describe('bodyBytesInFlight', () => {
  const MiB = 1024 * 1024;
  it('is the configured value, else a sixteenth of the heap limit and at least one largest body', () => {
    expect(bodyBytesInFlight({ maxBodyBytes: 20 * MiB, maxBodyBytesInFlight: 50 * MiB }, 4096 * MiB)).toBe(
      50 * MiB,
    );
    expect(bodyBytesInFlight({ maxBodyBytes: 20 * MiB }, 4096 * MiB)).toBe(256 * MiB);
    expect(bodyBytesInFlight({ maxBodyBytes: 20 * MiB }, 128 * MiB)).toBe(20 * MiB);
  });
});
