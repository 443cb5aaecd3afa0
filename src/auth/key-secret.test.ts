import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadKeySecret } from './key-secret.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'key-secret-'));

describe('loadKeySecret', () => {
  it('takes GATEWAY_KEY_SECRET when set, and refuses a short one', () => {
    const secret = 'x'.repeat(40);
    const loaded = loadKeySecret({ secret, databaseUrl: 'sqlite::memory:', warn: () => undefined });
    expect(loaded).toEqual({ secret: Buffer.from(secret), source: 'GATEWAY_KEY_SECRET' });
    expect(() => loadKeySecret({ secret: 'short', databaseUrl: 'x', warn: () => undefined })).toThrow(/32/);
  });

  it('creates key-secret beside the SQLite database with mode 0600, then reads the same one', () => {
    const dir = tempDir();
    const databaseUrl = `sqlite:${join(dir, 'db', 'gateway.db')}`;
    const first = loadKeySecret({ databaseUrl, warn: () => undefined });
    const file = join(dir, 'db', 'key-secret');
    expect(first.source).toBe(file);
    expect(first.secret.length).toBeGreaterThanOrEqual(32);
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secret.toString('utf8'));
    expect(loadKeySecret({ databaseUrl, warn: () => undefined }).secret).toEqual(first.secret);
  });

  it('uses GATEWAY_KEY_SECRET_FILE when given, and refuses a file that holds too little', () => {
    const file = join(tempDir(), 'nested', 'secret');
    const loaded = loadKeySecret({ file, databaseUrl: 'postgres://h/db', warn: () => undefined });
    expect(loaded.source).toBe(file);
    writeFileSync(file, 'tiny\n');
    expect(() => loadKeySecret({ file, databaseUrl: 'postgres://h/db', warn: () => undefined })).toThrow(
      /fewer than 32/,
    );
  });

  it('warns about a file others can read, and about PostgreSQL instances needing one shared secret', () => {
    const warnings: string[] = [];
    const file = join(tempDir(), 'secret');
    writeFileSync(file, `${'a'.repeat(64)}\n`);
    chmodSync(file, 0o644);
    loadKeySecret({ file, databaseUrl: 'sqlite:./x.db', warn: (line) => warnings.push(line) });
    if (process.platform !== 'win32') expect(warnings.join('\n')).toContain('chmod 600');
    expect(warnings.join('\n')).not.toContain('a'.repeat(32));
  });

  it('keeps an in-memory database’s secret in memory only', () => {
    const a = loadKeySecret({ databaseUrl: 'sqlite::memory:', warn: () => undefined });
    const b = loadKeySecret({ databaseUrl: 'sqlite::memory:', warn: () => undefined });
    expect(a.source).toMatch(/memory/);
    expect(a.secret.equals(b.secret)).toBe(false);
  });
});
