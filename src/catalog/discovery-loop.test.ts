import { afterEach, describe, expect, it, vi } from 'vitest';
import { Catalog, type ResolvedProvider } from './catalog.js';
import type { DiscoveredModel } from './discovered-models.js';
import { startDiscovery } from './discovery-loop.js';

const ollama: ResolvedProvider = {
  id: 'ollama',
  api: 'openai',
  baseUrl: 'http://127.0.0.1:11434/v1',
  zdr: false,
  discover: true,
  discoverIntervalSeconds: 60,
  supportsSet: new Set(['chat']),
};

afterEach(() => {
  vi.useRealTimers();
});

/** A discovery whose listings are the queued answers (a list, or an error), one per round. */
async function discovery(answers: (DiscoveredModel[] | Error)[]) {
  const catalog = new Catalog({ providers: new Map([['ollama', ollama]]), models: [] });
  const logs: string[] = [];
  let rounds = 0;
  const running = await startDiscovery({
    catalog,
    list: async () => {
      rounds += 1;
      const answer = answers.shift() ?? new Error('no more answers');
      if (answer instanceof Error) throw answer;
      return { models: answer, truncated: false };
    },
    log: (line) => logs.push(line),
  });
  return { catalog, logs, running, rounds: () => rounds };
}

const named = (...names: string[]) => names.map((name) => ({ name, created: 0 }));

describe('startDiscovery', () => {
  it('lists at start, then every interval; a failure keeps the last list and is logged once per outage', async () => {
    vi.useFakeTimers();
    const { catalog, logs, running, rounds } = await discovery([
      named('a'),
      new Error('connect ECONNREFUSED'),
      new Error('connect ECONNREFUSED'),
      named('a', 'b'),
    ]);
    expect(catalog.get('ollama/a')).toBeDefined();
    await vi.advanceTimersByTimeAsync(60_000);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(rounds()).toBe(3);
    expect(catalog.get('ollama/a')).toBeDefined();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain('failed (connect ECONNREFUSED); keeping the 1 models');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(catalog.get('ollama/b')).toBeDefined();
    expect(logs[1]).toContain('works again (2 models)');
    running.stop();
    await vi.advanceTimersByTimeAsync(600_000);
    expect(rounds()).toBe(4);
  });

  it('a first listing that fails leaves the provider with no discovered models, and start goes on', async () => {
    const { catalog, logs, running } = await discovery([new Error('HTTP 500')]);
    expect(catalog.list()).toEqual([]);
    expect(logs).toEqual([
      'model discovery of provider ollama failed (HTTP 500); keeping the 0 models it listed before',
    ]);
    running.stop();
  });

  it('its timers do not keep the process alive', async () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const { running } = await discovery([named('a')]);
    const timer = spy.mock.results.at(-1)?.value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    running.stop();
    spy.mockRestore();
  });
});
