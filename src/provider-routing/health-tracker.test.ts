import { describe, expect, it } from 'vitest';
import { HealthTracker } from './health-tracker.js';

function tracker() {
  let now = 1_000_000;
  const health = new HealthTracker(() => now);
  return { health, advance: (ms: number) => (now += ms) };
}

describe('HealthTracker', () => {
  it('reports medians of time to first token and throughput, and uptime in percent', () => {
    const { health } = tracker();
    for (const ttftMs of [100, 300, 200])
      health.observe('m', 'p', { ok: true, ttftMs, outputTokens: 50, generationMs: 500 });
    health.observe('m', 'p', { ok: false });
    expect(health.statsFor('m', 'p')).toEqual({
      latencyP50Ms: 200,
      throughputP50: 100,
      uptimePercent: 75,
      samples: 4,
    });
    expect(health.health('m', 'p')).toEqual({
      uptime: 0.75,
      latencyP50Ms: 200,
      throughputP50: 100,
      coolingDown: false,
    });
  });

  it('forgets samples older than 30 minutes', () => {
    const { health, advance } = tracker();
    health.observe('m', 'p', { ok: false });
    advance(31 * 60_000);
    health.observe('m', 'p', { ok: true, ttftMs: 10 });
    expect(health.statsFor('m', 'p').uptimePercent).toBe(100);
  });

  it('has no figures without traffic, and keeps models and providers apart', () => {
    const { health } = tracker();
    health.observe('m', 'p', { ok: false });
    expect(health.statsFor('m', 'q')).toEqual({
      latencyP50Ms: undefined,
      throughputP50: undefined,
      uptimePercent: undefined,
      samples: 0,
    });
    expect(health.health('other', 'p').uptime).toBe(1);
  });

  it('cools a provider down for its retry-after, then lets it back', () => {
    const { health, advance } = tracker();
    health.observe('m', 'p', { ok: false, retryAfterMs: 5_000 });
    expect(health.health('m', 'p').coolingDown).toBe(true);
    expect(health.health('other-model', 'p').coolingDown).toBe(true);
    expect(health.cooldownRemainingMs('p')).toBe(5_000);
    advance(5_001);
    expect(health.health('m', 'p').coolingDown).toBe(false);
    expect(health.cooldownRemainingMs('p')).toBe(0);
  });

  it('cools a provider down after three failures in a row, not after two', () => {
    const { health } = tracker();
    health.observe('m', 'p', { ok: false });
    health.observe('m', 'p', { ok: false });
    expect(health.health('m', 'p').coolingDown).toBe(false);
    health.observe('m', 'p', { ok: true, ttftMs: 5 });
    health.observe('m', 'p', { ok: false });
    health.observe('m', 'p', { ok: false });
    expect(health.health('m', 'p').coolingDown).toBe(false);
    health.observe('m', 'p', { ok: false });
    expect(health.health('m', 'p').coolingDown).toBe(true);
  });
});
