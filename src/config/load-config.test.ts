import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from './load-config.js';

const dir = mkdtempSync(join(tmpdir(), 'gateway-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const loadYaml = (yaml: string) => {
  const path = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(path, yaml);
  return loadConfig(path, {});
};

const capOf = (written: string) =>
  loadYaml(`organizations:\n  - id: acme\n    monthlyLimit: ${written}\n`).organizations[0]?.monthlyLimit;

describe('monthlyLimit in a YAML config file (bug: 0.0000005 was stored as "5e-7" and every request failed)', () => {
  it.each([
    ['0.0000005', '0.0000005'],
    ['1e-7', '0.0000001'],
    ['25', '25'],
    ['"25.10"', '25.10'],
    ['1e6', '1000000'],
    ['1e9', '1000000000'],
    // More digits than a double holds: the text written is kept, not its rounded binary value.
    ['1234567890.123456789', '1234567890.123456789'],
  ])('%s is the plain decimal %s', (written, plain) => {
    expect(capOf(written)).toBe(plain);
  });

  it.each([
    ['-1', /organizations\.0\.monthlyLimit: must be a non-negative decimal/],
    ['1e-12', /organizations\.0\.monthlyLimit: must be 0 or at least 0\.000000001/],
    ['1e21', /organizations\.0\.monthlyLimit: must be at most 1e15/],
    ['lots', /organizations\.0\.monthlyLimit: must be a non-negative decimal/],
  ])('refuses %s naming the path', (written, message) => {
    expect(() => capOf(written)).toThrow(ConfigError);
    expect(() => capOf(written)).toThrow(message);
  });

  it('reads numbers given as objects (not YAML) by their shortest decimal form', () => {
    const config = parseConfig({ organizations: [{ id: 'a', monthlyLimit: 0.0000005 }] }, 'test');
    expect(config.organizations[0]?.monthlyLimit).toBe('0.0000005');
  });
});

describe('limits', () => {
  it('has defaults', () => {
    expect(parseConfig({}, 'test').limits).toEqual({
      spendRefreshMs: 1_000,
      spendCheckAbovePercent: 50,
      redis: { commandTimeoutMs: 1_000, reservationLeaseMs: 15_000 },
    });
  });

  it.each([
    [{ spendRefreshMs: 0 }, /limits\.spendRefreshMs/],
    [{ spendCheckAbovePercent: 101 }, /limits\.spendCheckAbovePercent/],
    [{ redis: { commandTimeoutMs: 60_000 } }, /limits\.redis\.commandTimeoutMs/],
    [{ redis: { reservationLeaseMs: 10 } }, /limits\.redis\.reservationLeaseMs/],
    [{ redis: { leaseMs: 1 } }, /limits\.redis\.leaseMs: unknown key/],
  ])('refuses %j naming the path', (limits, message) => {
    expect(() => parseConfig({ limits }, 'test')).toThrow(message);
  });
});
