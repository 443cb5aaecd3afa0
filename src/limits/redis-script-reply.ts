/**
 * Replies of the limiter's Lua scripts (redis-scripts.ts), checked as they come out of Redis: a reply of an
 * unexpected shape is an error, never a guess.
 */

/** A script's array reply as strings (numbers written out; anything else becomes ''). */
export function replyStrings(reply: unknown): string[] {
  if (!Array.isArray(reply)) throw new Error(`Unexpected script reply: ${String(reply)}`);
  return reply.map((item: unknown) =>
    typeof item === 'string' || typeof item === 'number' ? String(item) : '',
  );
}

/** An amount of nano-USD from a reply, exactly at any size. */
export function toBigInt(value: string | undefined): bigint {
  if (value === undefined || !/^-?\d+$/.test(value)) throw new Error(`Unexpected amount in Redis: ${value}`);
  return BigInt(value);
}

/** An amount of nano-USD from a reply, as a number (for results typed in numbers). */
export const toNumber = (value: string | undefined): number => Number(toBigInt(value));
