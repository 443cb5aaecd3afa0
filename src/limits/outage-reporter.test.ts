import { describe, expect, it } from 'vitest';
import { OutageReporter } from './outage-reporter.js';

describe('OutageReporter', () => {
  it('logs one line when an outage starts and one when it ends, whatever the number of failures', () => {
    const lines: string[] = [];
    let now = 0;
    const reporter = new OutageReporter(
      'Redis',
      (line) => lines.push(line),
      () => now,
    );
    reporter.recovered();
    expect(lines).toEqual([]);
    for (let i = 0; i < 1000; i += 1) reporter.failed('connection refused');
    expect(reporter.down).toBe(true);
    now = 2_500;
    for (let i = 0; i < 10; i += 1) reporter.recovered();
    expect(reporter.down).toBe(false);
    expect(lines).toEqual([
      'Redis is unavailable (connection refused); requests that need it answer 503 until it is back',
      'Redis is available again after 2.5 s',
    ]);
  });
});
