import { isRecord } from '../json/json.js';

/** A count this far from a whole number is read as rounding noise (12.0000001 → 12); further, a problem. */
const ROUNDING = 0.001;

/**
 * Reads token counts of an upstream's usage object, noting every problem instead of reading it as 0:
 * usage is data to check, not to trust (a negative, string or missing count silently cost 0 before).
 */
export class UsageFieldReader {
  readonly problems: string[] = [];

  /** `what` names the object in problems (`usage`, `usageMetadata`). Not an object: one problem. */
  constructor(
    private readonly usage: unknown,
    private readonly what: string,
  ) {
    if (!isRecord(usage)) this.problems.push(`no ${what} object in the answer`);
  }

  /** A count the upstream must report. */
  required(key: string): number {
    return this.read(this.usage, key, true, key);
  }

  /** A count the upstream may leave out (0 then); present, it must be a count. */
  optional(key: string): number {
    return this.read(this.usage, key, false, key);
  }

  /** An optional count inside a nested object (`prompt_tokens_details.cached_tokens`). */
  nested(parent: string, key: string): number {
    const object = isRecord(this.usage) ? this.usage[parent] : undefined;
    if (object === undefined || object === null) return 0;
    if (!isRecord(object)) {
      this.problems.push(`${this.what}.${parent} is not an object`);
      return 0;
    }
    return this.read(object, key, false, `${parent}.${key}`);
  }

  /** True when `key` is present (whatever its value). */
  has(key: string): boolean {
    return isRecord(this.usage) && this.usage[key] !== undefined && this.usage[key] !== null;
  }

  /**
   * The problems to put on a Usage (absent when none, so that clean usages compare equal as before), and
   * whether the answer had no usage object at all.
   */
  get found(): { problems?: readonly string[]; unreported?: true } {
    if (this.problems.length === 0) return {};
    return isRecord(this.usage)
      ? { problems: [...this.problems] }
      : { problems: [...this.problems], unreported: true };
  }

  private read(object: unknown, key: string, required: boolean, path: string): number {
    if (!isRecord(object)) return 0;
    const value = object[key];
    if (value === undefined || value === null) {
      if (required) this.problems.push(`${this.what}.${path} is missing`);
      return 0;
    }
    if (typeof value !== 'number') {
      this.problems.push(`${this.what}.${path} is a ${typeof value}, not a number`);
      return 0;
    }
    const whole = Math.round(value);
    if (!Number.isFinite(value) || Math.abs(value - whole) > ROUNDING) {
      this.problems.push(`${this.what}.${path} is not a whole number (${value})`);
      return 0;
    }
    if (whole < 0 || !Number.isSafeInteger(whole)) {
      this.problems.push(`${this.what}.${path} is out of range (${value})`);
      return 0;
    }
    return whole;
  }
}
