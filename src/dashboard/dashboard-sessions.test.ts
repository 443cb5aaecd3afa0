import { describe, expect, it } from 'vitest';
import { DashboardSessions } from './dashboard-sessions.js';

describe('DashboardSessions', () => {
  it('finds a session by its id until it expires', () => {
    let now = 1_000;
    const sessions = new DashboardSessions({ ttlMs: 60_000, maxSessions: 10, now: () => now });
    const { id, session } = sessions.create();
    expect(id).toMatch(/^[\w-]{43}$/);
    expect(session.csrfToken).not.toBe(id);
    expect(sessions.get(id)).toBe(session);
    expect(sessions.get(`${id}x`)).toBeUndefined();
    now += 60_000;
    expect(sessions.get(id)).toBeUndefined();
    expect(sessions.size).toBe(0);
  });

  it('ends a session on logout', () => {
    const sessions = new DashboardSessions({ ttlMs: 60_000, maxSessions: 10 });
    const { id } = sessions.create();
    sessions.end(id);
    expect(sessions.get(id)).toBeUndefined();
  });

  it('holds at most maxSessions, ending the oldest first', () => {
    const sessions = new DashboardSessions({ ttlMs: 60_000, maxSessions: 3 });
    const ids = Array.from({ length: 5 }, () => sessions.create().id);
    expect(sessions.size).toBe(3);
    expect(sessions.get(ids[0] ?? '')).toBeUndefined();
    expect(sessions.get(ids[1] ?? '')).toBeUndefined();
    expect(sessions.get(ids[4] ?? '')).toBeDefined();
  });
});
