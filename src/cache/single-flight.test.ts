import { describe, expect, it } from 'vitest';
import { SingleFlight } from './single-flight.js';

describe('SingleFlight', () => {
  it('lets one lead; followers get its answer; the next request leads again', async () => {
    const flights = new SingleFlight<string>(10);
    const finish = flights.lead('k');
    expect(finish).toBeDefined();
    expect(flights.lead('k')).toBeUndefined();
    const followers = [
      flights.follow('k', new AbortController().signal),
      flights.follow('k', new AbortController().signal),
    ];
    expect(flights.waiting).toBe(2);
    finish?.('answer');
    expect(await Promise.all(followers)).toEqual(['answer', 'answer']);
    expect(flights.waiting).toBe(0);
    expect(flights.follow('k', new AbortController().signal)).toBeUndefined();
    expect(flights.lead('k')).toBeDefined();
  });

  it('tells followers there is nothing when the leader ends without an answer', async () => {
    const flights = new SingleFlight<string>(10);
    const finish = flights.lead('k');
    const follower = flights.follow('k', new AbortController().signal);
    finish?.(undefined);
    expect(await follower).toBeUndefined();
  });

  it('lets at most maxWaiters wait per key', () => {
    const flights = new SingleFlight<string>(2);
    flights.lead('k');
    const signal = new AbortController().signal;
    expect(flights.follow('k', signal)).toBeDefined();
    expect(flights.follow('k', signal)).toBeDefined();
    expect(flights.follow('k', signal)).toBeUndefined();
    flights.lead('j');
    expect(flights.follow('j', signal)).toBeDefined();
  });

  it('stops the wait of a follower whose client went away', async () => {
    const flights = new SingleFlight<string>(2);
    const finish = flights.lead('k');
    const controller = new AbortController();
    const follower = flights.follow('k', controller.signal);
    controller.abort();
    await expect(follower).rejects.toMatchObject({ type: 'request_cancelled' });
    expect(flights.waiting).toBe(0);
    finish?.('late');
  });
});
