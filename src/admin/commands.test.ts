import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createKeyHasher } from '../auth/api-keys.js';
import { SqliteStore } from '../store/sqlite-store.js';
import { runAdminCommand } from './commands.js';

const hasher = createKeyHasher(Buffer.from('admin-test-secret'.repeat(2)));
let store: SqliteStore;
let lines: string[];

beforeEach(async () => {
  store = new SqliteStore(':memory:');
  await store.migrate();
  lines = [];
});
afterEach(async () => {
  await store.close();
});

/** Runs a command line such as `org create acme --rpm 5` and returns its exit code. */
function admin(commandLine: string): Promise<number> {
  lines = [];
  return runAdminCommand(commandLine.split(' ').filter(Boolean), store, (line) => lines.push(line), {
    keyHasher: () => hasher,
  });
}

const output = () => lines.join('\n');

describe('org commands', () => {
  it('creates an organization with limits', async () => {
    expect(await admin('org create acme --name Acme --monthly-limit 25.50 --rpm 600')).toBe(0);
    expect(output()).toMatch(/^created organization acme/);
    expect(await store.getOrganization('acme')).toMatchObject({
      name: 'Acme',
      monthlyLimitUsd: '25.50',
      requestsPerMinute: 600,
    });
  });

  it.each([
    ['0.0000005', '0.0000005'],
    ['1e-7', '0.0000001'],
    ['25', '25'],
    ['1e3', '1000'],
    ['.5', '0.5'],
    ['1e6', '1000000'],
    ['1e9', '1000000000'],
  ])('stores --monthly-limit %s as the plain decimal %s', async (given, stored) => {
    expect(await admin(`org create acme --monthly-limit ${given}`)).toBe(0);
    expect((await store.getOrganization('acme'))?.monthlyLimitUsd).toBe(stored);
  });

  it('updates an existing organization, keeping what is not given and clearing "none"', async () => {
    await admin('org create acme --monthly-limit 25 --rpm 60');
    expect(await admin('org create acme --rpm none')).toBe(0);
    expect(output()).toMatch(/^updated organization acme/);
    expect(await store.getOrganization('acme')).toMatchObject({
      monthlyLimitUsd: '25',
      requestsPerMinute: null,
    });
  });

  it.each([
    ['--monthly-limit -1', /argument is ambiguous/],
    ['--monthly-limit=-1', /--monthly-limit must be a non-negative decimal/],
    ['--monthly-limit 1e', /--monthly-limit must be a non-negative decimal/],
    ['--monthly-limit abc', /--monthly-limit must be a non-negative decimal/],
    ['--monthly-limit 1e-12', /--monthly-limit must be 0 or at least 0.000000001/],
    ['--monthly-limit 1e21', /--monthly-limit must be at most 1e15/],
    ['--rpm 0', /--rpm must be a positive integer/],
    ['--rpm 1.5', /--rpm must be a positive integer/],
    ['--rpm 99999999999999999999', /--rpm must be a positive integer/],
    ['--cache-ttl 0', /--cache-ttl must be whole seconds from 1 to 2592000/],
    ['--cache-ttl 2592001', /--cache-ttl must be whole seconds from 1 to 2592000/],
    ['--cache-ttl 1.5', /--cache-ttl must be whole seconds/],
    ['--cache-ttl off', /--cache-ttl must be whole seconds/],
    ['--bogus 1', /Unknown option '--bogus'/],
  ])('rejects org create acme %s as a usage error', async (flags, message) => {
    expect(await admin(`org create acme ${flags}`)).toBe(2);
    expect(output()).toMatch(message);
    expect(output()).toContain('usage: org create <id>');
    expect(await store.getOrganization('acme')).toBeUndefined();
  });

  it('rejects a missing or malformed id and extra arguments', async () => {
    expect(await admin('org create')).toBe(2);
    expect(output()).toMatch(/expects <id>/);
    expect(await admin('org create ../x')).toBe(2);
    expect(await admin('org create a b')).toBe(2);
    expect(await admin('org list extra')).toBe(2);
    expect(await store.listOrganizations()).toEqual([]);
  });

  it('turns the response cache on with --cache-ttl and off with "none", through the audited operations', async () => {
    expect(await admin('org create acme --cache-ttl 60')).toBe(0);
    expect(output()).toContain('response cache: 60 s');
    expect((await store.getOrganization('acme'))?.cacheTtlSeconds).toBe(60);
    expect(await admin('org create acme --rpm 5')).toBe(0);
    expect((await store.getOrganization('acme'))?.cacheTtlSeconds).toBe(60);
    expect(await admin('org create acme --cache-ttl none')).toBe(0);
    expect(output()).toContain('response cache: off');
    expect((await store.getOrganization('acme'))?.cacheTtlSeconds).toBeNull();
    const audit = await store.listAudit({ limit: 10 });
    expect(audit[0]).toMatchObject({
      actor: 'admin-cli',
      action: 'organization.update',
      before: { cache: { ttlSeconds: 60 } },
      after: { cache: null },
    });
  });

  it('lists organizations as a table', async () => {
    expect(await admin('org list')).toBe(0);
    expect(lines).toEqual(['no organizations']);
    await admin('org create beta --rpm 5 --cache-ttl 300');
    await admin('org create acme --monthly-limit 10');
    expect(await admin('org list')).toBe(0);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+MONTHLY_LIMIT_USD\s+RPM\s+CACHE_TTL_S\s+CREATED$/);
    expect(lines[1]).toMatch(/^acme\s+acme\s+10\s+-\s+-\s+\d{4}-/);
    expect(lines[2]).toMatch(/^beta\s+beta\s+-\s+5\s+300\s+\d{4}-/);
    expect(lines).toHaveLength(3);
  });

  it('deletes an organization, and fails for an unknown one', async () => {
    await admin('org create acme');
    expect(await admin('org delete acme')).toBe(0);
    expect(await store.getOrganization('acme')).toBeUndefined();
    expect(await admin('org delete acme')).toBe(1);
    expect(output()).toMatch(/no organization "acme"/);
  });
});

describe('key commands', () => {
  beforeEach(async () => {
    await admin('org create acme');
  });

  it('creates a key, prints it once with a warning, and stores only its hash', async () => {
    expect(await admin('key create acme --name ci')).toBe(0);
    const key = lines.find((line) => line.startsWith('sk-gw-'));
    expect(key).toMatch(/^sk-gw-[\w-]{32}$/);
    expect(output()).toMatch(/will not be shown again/);
    const stored = await store.findApiKeyByHash(hasher.hash(key ?? ''));
    expect(stored).toMatchObject({ orgId: 'acme', name: 'ci', prefix: key?.slice(0, 10), revokedAt: null });
    const sha256 = createHash('sha256')
      .update(key ?? '')
      .digest('hex');
    expect(await store.findApiKeyByHash(sha256)).toBeUndefined();
    expect(JSON.stringify(await store.listApiKeys())).not.toContain(sha256);
  });

  it('refuses to create a key for an organization that does not exist', async () => {
    expect(await admin('key create ghost')).toBe(1);
    expect(output()).toMatch(/no organization "ghost"/);
    expect(await admin('org delete acme')).toBe(0);
    expect(await admin('key create acme')).toBe(1);
    expect(await store.listApiKeys()).toEqual([]);
  });

  it('lists keys without hashes or secrets, optionally for one organization', async () => {
    await admin('org create beta');
    await admin('key create acme --name one');
    const secret = lines.find((line) => line.startsWith('sk-gw-')) ?? 'missing';
    await admin('key create beta');
    const [acmeKey] = await store.listApiKeys('acme');
    expect(await admin('key list')).toBe(0);
    expect(lines[0]).toMatch(/^ID\s+ORG\s+NAME\s+PREFIX\s+CREATED\s+REVOKED$/);
    expect(lines).toHaveLength(3);
    expect(output()).not.toContain(secret);
    expect(output()).not.toContain(acmeKey?.keyHash ?? 'missing');
    expect(await admin('key list --org acme')).toBe(0);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      new RegExp(`^${acmeKey?.id}\\s+acme\\s+one\\s+${secret.slice(0, 10)}\\s+\\S+\\s+-$`),
    );
    expect(await admin('key list --org nobody')).toBe(0);
    expect(lines).toEqual(['no API keys']);
  });

  it('revokes a key once', async () => {
    await admin('key create acme');
    const [key] = await store.listApiKeys();
    expect(await admin(`key revoke ${key?.id}`)).toBe(0);
    expect((await store.findApiKeyByHash(key?.keyHash ?? ''))?.revokedAt).not.toBeNull();
    expect(await admin(`key revoke ${key?.id}`)).toBe(1);
    expect(output()).toMatch(/no unrevoked API key/);
    expect(await admin('key revoke')).toBe(2);
  });
});

describe('help and unknown commands', () => {
  it('prints help with exit code 0', async () => {
    expect(await admin('help')).toBe(0);
    expect(output()).toContain('org create <id>');
    expect(output()).toContain('key revoke <keyId>');
  });

  it('exits 2 on no command or an unknown one', async () => {
    expect(await admin('')).toBe(2);
    expect(output()).toMatch(/no command given/);
    expect(await admin('org frobnicate')).toBe(2);
    expect(output()).toMatch(/unknown command "org frobnicate"/);
    expect(output()).toContain('usage:');
  });

  it('reports a store failure with exit code 1', async () => {
    await store.close();
    expect(await admin('org list')).toBe(1);
    expect(output()).toMatch(/^error: /);
  });
});
