/**
 * Monthly caps as exact decimals. A cap arrives as a YAML number, a string or a command-line word, in any
 * decimal form (`25`, `25.10`, `0.0000005`, `1e-7`, `1E9`, `.5`); it is kept as a plain decimal string
 * (never `5e-7`) and compared as an exact integer of nano-USD (a bigint: $10^9 is 10^18 nano-USD, beyond
 * `Number.MAX_SAFE_INTEGER`). No floating-point step is involved.
 */

/** The largest cap accepted, in USD (10^15): far beyond any real budget, and still a short exact string. */
export const MAX_CAP_USD_DIGITS = 16;

const DECIMAL_FORM = /^\+?(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,6}))?$/;

/** A decimal number as its significant digits and the power of ten they are scaled by. */
interface Decimal {
  digits: string;
  exponent: number;
}

function parseDecimal(text: string): Decimal | undefined {
  const match = DECIMAL_FORM.exec(text.trim());
  if (!match) return undefined;
  const whole = match[1] ?? '';
  const fraction = match[2] ?? '';
  if (whole === '' && fraction === '') return undefined;
  const digits = `${whole}${fraction}`.replace(/^0+/, '');
  return { digits, exponent: Number(match[3] ?? '0') - fraction.length };
}

/** Significant decimal digits every double keeps exactly (DBL_DIG): a decimal with at most 15 reads back as itself. */
const EXACT_DOUBLE_DIGITS = 15;

/**
 * The text of a cap as written: a JavaScript number is turned into its shortest round-trip form, which is
 * the decimal the JSON body or YAML file held whenever it had at most 15 significant digits (`5e-7` for
 * `0.0000005`). A number whose shortest form needs more was rounded when it was parsed
 * (123456789.123456789 reads as 123456789.12345679), so it is refused with a RangeError asking for a string.
 * A number rounded to one with few digits (1000000000.000000001 reads as exactly 1e9) cannot be told from
 * it here: only its source text could, which the parsed value no longer has.
 */
export function capText(value: string | number): string {
  if (typeof value === 'string') return value;
  const text = String(value);
  const significant = parseDecimal(text)?.digits.replace(/0+$/, '') ?? '';
  if (significant.length > EXACT_DOUBLE_DIGITS) {
    throw new RangeError(
      `must be sent as a string when it has more than ${EXACT_DOUBLE_DIGITS} significant digits: as a number it reads as ${text}, not exactly what was written`,
    );
  }
  return text;
}

/**
 * A cap in USD as a plain decimal string (`1e-7` → `0.0000001`, `1e9` → `1000000000`, `25.10` stays).
 * Throws a RangeError saying what is wrong when the value is not a usable cap: not a decimal, negative, not
 * finite, a number with more than 15 significant digits (see `capText`), above 10^15 USD, or positive but below 1 nano-USD (such a cap could never be told apart from 0,
 * so it is refused rather than silently read as "nothing may be spent").
 */
export function normalizeCapUsd(value: string | number): string {
  const text = capText(value);
  const decimal = parseDecimal(text);
  if (!decimal) {
    throw new RangeError(
      `must be a non-negative decimal number of USD (like 25, 0.0000005 or 1e-7), got "${text}"`,
    );
  }
  if (decimal.digits === '') return '0';
  const integerDigits = decimal.digits.length + decimal.exponent;
  if (integerDigits > MAX_CAP_USD_DIGITS) throw new RangeError(`must be at most 1e15 USD, got "${text}"`);
  if (integerDigits < -8) {
    throw new RangeError(
      `must be 0 or at least 0.000000001 USD (1 nano-USD, the unit of costs), got "${text}"`,
    );
  }
  if (decimal.exponent >= 0) return decimal.digits + '0'.repeat(decimal.exponent);
  const padded = decimal.digits.padStart(-decimal.exponent + 1, '0');
  const point = padded.length + decimal.exponent;
  return `${padded.slice(0, point)}.${padded.slice(point)}`;
}

/**
 * A cap in whole nano-USD, exact. Costs are whole nano-USD, so a cap with a fraction of a nano-USD is
 * rounded down: a spend of at most 1.5 nano-USD is a spend of at most 1 nano-USD. Throws like `normalizeCapUsd`.
 */
export function capUsdToNano(value: string | number): bigint {
  const plain = normalizeCapUsd(value);
  const [whole = '0', fraction = ''] = plain.split('.');
  return BigInt(whole) * 1_000_000_000n + BigInt(fraction.slice(0, 9).padEnd(9, '0'));
}

/** Nano-USD as a USD decimal string without rounding (`1500000000n` → `1.5`), for messages. */
export function nanoToUsdText(nano: bigint): string {
  const sign = nano < 0n ? '-' : '';
  const abs = nano < 0n ? -nano : nano;
  const fraction = (abs % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${sign}${abs / 1_000_000_000n}${fraction ? `.${fraction}` : ''}`;
}
