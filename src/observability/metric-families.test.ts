import { describe, expect, it } from 'vitest';
import { CounterFamily, HistogramFamily } from './metric-families.js';

describe('CounterFamily', () => {
  it('sums per label set and escapes label values', () => {
    const counter = new CounterFamily('x_total', 'Things\ncounted.', ['model', 'kind']);
    counter.inc(['a/b', 'in']);
    counter.inc(['a/b', 'in'], 4);
    counter.inc(['say "hi"\\', 'out']);
    expect(counter.render()).toBe(
      '# HELP x_total Things\\ncounted.\n# TYPE x_total counter\n' +
        'x_total{model="a/b",kind="in"} 5\n' +
        'x_total{model="say \\"hi\\"\\\\",kind="out"} 1\n',
    );
  });
});

describe('HistogramFamily', () => {
  it('writes cumulative buckets, +Inf, sum and count', () => {
    const histogram = new HistogramFamily('d_seconds', 'Durations.', ['route'], [0.1, 1]);
    histogram.observe(['/v1'], 0.05);
    histogram.observe(['/v1'], 0.1);
    histogram.observe(['/v1'], 0.5);
    histogram.observe(['/v1'], 7);
    histogram.observe(['/v1'], Number.NaN);
    expect(histogram.render()).toBe(
      '# HELP d_seconds Durations.\n# TYPE d_seconds histogram\n' +
        'd_seconds_bucket{route="/v1",le="0.1"} 2\n' +
        'd_seconds_bucket{route="/v1",le="1"} 3\n' +
        'd_seconds_bucket{route="/v1",le="+Inf"} 4\n' +
        'd_seconds_sum{route="/v1"} 7.65\n' +
        'd_seconds_count{route="/v1"} 4\n',
    );
  });
});
