import { describe, expect, it } from 'vitest';
import { OutageLog } from './outage-log.js';

describe('OutageLog', () => {
  it('logs one line when an outage starts and one when it ends, however many operations fail', () => {
    const lines: string[] = [];
    let now = 1_000;
    const outage = new OutageLog(
      'PostgreSQL',
      (line) => lines.push(line),
      () => now,
    );
    outage.recovered();
    expect(lines).toEqual([]);
    for (let i = 0; i < 500; i += 1) outage.failed(new Error('connect ECONNREFUSED'));
    expect(outage.down).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^PostgreSQL unavailable: connect ECONNREFUSED/);
    now += 2_500;
    outage.recovered();
    outage.recovered();
    expect(outage.down).toBe(false);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe('PostgreSQL available again after 2.5 s (500 operations failed meanwhile)');
  });
});
