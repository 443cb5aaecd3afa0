import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * The Lua scripts of `RedisLimiter`. Redis runs each script alone (no other command interleaves), so every
 * check-then-update below is atomic across all gateway instances sharing the server.
 *
 * A month of an organization is one hash, `spent`, `reserved` and one `r:<id>` field per open reservation
 * holding its amount, beside a sorted set of the open reservation ids scored by their expiry time (both
 * share a `{…}` hash tag). Amounts are integer nano-USD, changed only with HINCRBY on integer strings;
 * the cap comparison uses Lua numbers (doubles), exact below 2^53 nano-USD (about 9 million USD).
 */

/** Seeds `spent` (HSETNX: the first seeder wins, all agree), or answers `{'seed'}` when no seed was given. */
const SEED = `
local month, pending = KEYS[1], KEYS[2]
if redis.call('HEXISTS', month, 'spent') == 0 then
  if ARGV[1] == '' then return {'seed'} end
  redis.call('HSETNX', month, 'spent', ARGV[1])
end`;

/**
 * Releases reservations whose holder never settled them (a crashed instance): each expired id gives its
 * amount back to `reserved`. Bounded per call; the rest go on the next call.
 */
const RELEASE_EXPIRED = `
local expired = redis.call('ZRANGEBYSCORE', pending, '-inf', ARGV[2], 'LIMIT', 0, 100)
for _, id in ipairs(expired) do
  local amount = redis.call('HGET', month, 'r:' .. id)
  if amount then
    if amount ~= '0' then redis.call('HINCRBY', month, 'reserved', '-' .. amount) end
    redis.call('HDEL', month, 'r:' .. id)
  end
  redis.call('ZREM', pending, id)
end`;

const USAGE = `${SEED}${RELEASE_EXPIRED}
return {'usage', redis.call('HGET', month, 'spent'), redis.call('HGET', month, 'reserved') or '0'}`;

const RESERVE = `${SEED}${RELEASE_EXPIRED}
local spent = redis.call('HGET', month, 'spent')
local reserved = redis.call('HGET', month, 'reserved') or '0'
if tonumber(spent) + tonumber(reserved) + tonumber(ARGV[3]) > tonumber(ARGV[4]) then
  return {'full', spent, reserved}
end
redis.call('HINCRBY', month, 'reserved', ARGV[3])
redis.call('HSET', month, 'r:' .. ARGV[5], ARGV[3])
redis.call('ZADD', pending, ARGV[6], ARGV[5])
redis.call('PEXPIRE', month, ARGV[7])
redis.call('PEXPIRE', pending, ARGV[7])
return {'ok'}`;

const SETTLE = `
local month, pending = KEYS[1], KEYS[2]
local amount = redis.call('HGET', month, 'r:' .. ARGV[1])
if not amount then return 0 end
redis.call('HDEL', month, 'r:' .. ARGV[1])
redis.call('ZREM', pending, ARGV[1])
if amount ~= '0' then redis.call('HINCRBY', month, 'reserved', '-' .. amount) end
redis.call('HINCRBY', month, 'spent', ARGV[2])
redis.call('PEXPIRE', month, ARGV[3])
return 1`;

const HIT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return count`;

export interface LuaScript {
  source: string;
  sha: string;
}

const script = (source: string): LuaScript => ({
  source,
  sha: createHash('sha1').update(source).digest('hex'),
});

export const limiterScripts = {
  /** KEYS: window counter. ARGV: ttlMs. Returns the window's count including this hit. */
  hit: script(HIT),
  /**
   * KEYS: month hash, pending set. ARGV: seed ('' = unknown), nowMs, amount, cap, id, expiresAtMs, monthTtlMs.
   * Returns `{'seed'}`, `{'full', spent, reserved}` or `{'ok'}`.
   */
  reserve: script(RESERVE),
  /** KEYS: month hash, pending set. ARGV: id, actual, monthTtlMs. Returns 1 when settled, 0 when unknown. */
  settle: script(SETTLE),
  /** KEYS: month hash, pending set. ARGV: seed ('' = unknown), nowMs. Returns `{'seed'}` or `{'usage', spent, reserved}`. */
  usage: script(USAGE),
};

/** Runs a script by its SHA, sending the source once when the server does not know it yet (NOSCRIPT). */
export async function runScript(
  redis: Redis,
  lua: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  try {
    return await redis.evalsha(lua.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(lua.source, keys.length, ...keys, ...args);
  }
}
