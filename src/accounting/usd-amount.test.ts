import { describe, expect, it } from 'vitest';
import { capUsdToNano, nanoToUsdText, normalizeCapUsd } from './usd-amount.js';

describe('normalizeCapUsd and capUsdToNano', () => {
  it.each<[string | number, string, bigint]>([
    [0.0000005, '0.0000005', 500n],
    ['0.0000005', '0.0000005', 500n],
    [1e-7, '0.0000001', 100n],
    ['1e-7', '0.0000001', 100n],
    ['1E-9', '0.000000001', 1n],
    [25, '25', 25_000_000_000n],
    ['25.10', '25.10', 25_100_000_000n],
    [1e6, '1000000', 1_000_000_000_000_000n],
    [1e9, '1000000000', 1_000_000_000_000_000_000n],
    ['1e9', '1000000000', 1_000_000_000_000_000_000n],
    ['123456789.123456789', '123456789.123456789', 123_456_789_123_456_789n],
    [1e15, '1000000000000000', 10n ** 24n],
    // 15 significant digits are what every double keeps: such numbers are exact.
    [123456789.123456, '123456789.123456', 123_456_789_123_456_000n],
    [0.123456789012345, '0.123456789012345', 123_456_789n],
    ['.5', '0.5', 500_000_000n],
    ['5.', '5', 5_000_000_000n],
    ['2.50e-1', '0.250', 250_000_000n],
    [0, '0', 0n],
    ['0.000', '0', 0n],
    // Below a nano-USD in its fraction: costs are whole nano-USD, so 1.5 nano-USD allows what 1 allows.
    ['0.0000000015', '0.0000000015', 1n],
  ])('%s is %s USD, %s nano-USD', (input, plain, nano) => {
    expect(normalizeCapUsd(input)).toBe(plain);
    expect(capUsdToNano(input)).toBe(nano);
  });

  it.each<[string | number, RegExp]>([
    [-1, /non-negative decimal/],
    ['-0.5', /non-negative decimal/],
    ['abc', /non-negative decimal/],
    ['1e', /non-negative decimal/],
    ['0x10', /non-negative decimal/],
    ['', /non-negative decimal/],
    [Number.POSITIVE_INFINITY, /non-negative decimal/],
    [Number.NaN, /non-negative decimal/],
    [1e21, /at most 1e15/],
    ['1e999999', /at most 1e15/],
    [1e-10, /at least 0.000000001/],
    ['1e-999999', /at least 0.000000001/],
    // A number rounded when parsed (bug: stored as "123456789.12345679"); the same text as a string is kept.
    [Number('123456789.123456789'), /must be sent as a string .* reads as 123456789\.12345679,/],
    [0.1 + 0.2, /must be sent as a string/],
    [2 ** 53 + 2, /must be sent as a string/],
  ])('refuses %s', (input, message) => {
    expect(() => normalizeCapUsd(input)).toThrow(message);
    expect(() => capUsdToNano(input)).toThrow(RangeError);
  });
});

describe('nanoToUsdText', () => {
  it.each<[bigint, string]>([
    [0n, '0'],
    [1n, '0.000000001'],
    [1_500_000_000n, '1.5'],
    [10n ** 18n, '1000000000'],
    [-2n, '-0.000000002'],
  ])('%s', (nano, text) => expect(nanoToUsdText(nano)).toBe(text));
});
