import { describe, expect, it } from 'vitest';
import { filterQuery, recordQueryOf } from './record-filters.js';

describe('record filters of a dashboard page', () => {
  const now = new Date('2026-11-24T04:00:00Z');

  it('defaults to the current calendar month (UTC) and keeps only known, non-empty filters', () => {
    const query = new URLSearchParams({ org: 'acme', key: ' ', notice: 'x', cursor: 'c' });
    expect(recordQueryOf(query, now)).toEqual({
      org: 'acme',
      from: '2026-11-01T00:00:00.000Z',
      to: '2026-12-01T00:00:00.000Z',
    });
  });

  it('reads a bare date as midnight UTC and passes other text on for validation', () => {
    const query = new URLSearchParams({ from: '2026-10-01', to: 'yesterday', status: 'error' });
    expect(recordQueryOf(query, now)).toEqual({
      from: '2026-10-01T00:00:00Z',
      to: 'yesterday',
      status: 'error',
    });
  });

  it('writes a filter back as a query string', () => {
    const filter = recordQueryOf(new URLSearchParams({ model: 'a/b' }), now);
    expect(filterQuery(filter).toString()).toBe(
      'model=a%2Fb&from=2026-11-01T00%3A00%3A00.000Z&to=2026-12-01T00%3A00%3A00.000Z',
    );
  });
});
