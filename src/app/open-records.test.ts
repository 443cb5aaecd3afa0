import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalStoreName } from './open-records.js';

describe('journalStoreName', () => {
  it('names a store without its password, a SQLite file by its absolute path', () => {
    const a = journalStoreName('postgres://gw:secret-one@db.internal:5432/gateway');
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(journalStoreName('postgres://gw:other-secret@db.internal:5432/gateway')).toBe(a);
    expect(journalStoreName('postgres://gw:secret-one@db.internal:5432/other')).not.toBe(a);
    expect(journalStoreName('postgres://gw:secret-one@db2.internal:5432/gateway')).not.toBe(a);
    expect(journalStoreName('sqlite:./data/gateway.db')).toBe(
      journalStoreName(`sqlite:${resolve('data/gateway.db')}`),
    );
    expect(journalStoreName('sqlite:./data/gateway.db')).not.toBe(journalStoreName('sqlite:./data/other.db'));
  });
});
