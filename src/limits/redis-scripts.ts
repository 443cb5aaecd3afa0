import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * The Lua scripts of `RedisLimiter`. Redis runs each script alone (no other command interleaves), so every
 * check-then-update below is atomic across all gateway instances sharing the server.
 *
 * A month of an organization is one hash: `spent`, `reserved`, `epoch` (a random id written when the month is
 * seeded from the store; a flush or restart that loses the hash gives the next seed another one) and one
 * `r:<id>` field per open reservation holding its amount; beside it a sorted set of the open reservation ids
 * scored by the end of their lease (both share a `{…}` hash tag). Amounts are integer nano-USD changed only
 * with HINCRBY (64-bit). Lua numbers are doubles, exact only below 2^53, so the cap comparison splits every
 * amount into 10^9 "high" and "low" parts, each well below 2^53: exact for caps of any size.
 */

/** Exact comparison of non-negative integer strings: split in base 10^9, add with carry, compare. */
const BIG = `
local function split(s)
  local n = string.len(s)
  if n <= 9 then return 0, tonumber(s) end
  return tonumber(string.sub(s, 1, n - 9)), tonumber(string.sub(s, n - 8))
end
local function sum3(a, b, c)
  local ah, al = split(a)
  local bh, bl = split(b)
  local ch, cl = split(c)
  local h, l = ah + bh + ch, al + bl + cl
  while l >= 1000000000 do h, l = h + 1, l - 1000000000 end
  return h, l
end
local function above(h, l, limit)
  local mh, ml = split(limit)
  return h > mh or (h == mh and l > ml)
end`;

/**
 * Seeds `spent` and a new `epoch` when the month is missing (first use, expiry, flush, restart), or answers
 * `{'seed'}` when no seed was given. HSETNX: the first seeder wins, all agree.
 */
const SEED = `
local month, pending = KEYS[1], KEYS[2]
if redis.call('HEXISTS', month, 'spent') == 0 then
  if ARGV[1] == '' then return {'seed'} end
  redis.call('HSETNX', month, 'spent', ARGV[1])
  redis.call('HSET', month, 'epoch', ARGV[2])
elseif redis.call('HEXISTS', month, 'epoch') == 0 then
  redis.call('HSET', month, 'epoch', ARGV[2])
end`;

/**
 * Releases reservations whose lease ended (their instance stopped renewing: it crashed or lost Redis): each
 * gives its amount back to `reserved` and leaves an `x:<id>` mark, so that a settle arriving after all still
 * counts its cost. Bounded per call; the rest go on the next call.
 */
const RELEASE_EXPIRED = `
local expired = redis.call('ZRANGEBYSCORE', pending, '-inf', ARGV[3], 'LIMIT', 0, 100)
for _, id in ipairs(expired) do
  local amount = redis.call('HGET', month, 'r:' .. id)
  if amount then
    if amount ~= '0' then redis.call('HINCRBY', month, 'reserved', '-' .. amount) end
    redis.call('HDEL', month, 'r:' .. id)
    redis.call('HSET', month, 'x:' .. id, '1')
  end
  redis.call('ZREM', pending, id)
end`;

const USAGE = `${SEED}${RELEASE_EXPIRED}
return {'usage', redis.call('HGET', month, 'spent'), redis.call('HGET', month, 'reserved') or '0'}`;

const RESERVE = `${BIG}${SEED}${RELEASE_EXPIRED}
local spent = redis.call('HGET', month, 'spent')
local reserved = redis.call('HGET', month, 'reserved') or '0'
local h, l = sum3(spent, reserved, ARGV[4])
if above(h, l, ARGV[5]) then return {'full', spent, reserved} end
redis.call('HINCRBY', month, 'reserved', ARGV[4])
redis.call('HSET', month, 'r:' .. ARGV[6], ARGV[4])
redis.call('ZADD', pending, ARGV[7], ARGV[6])
redis.call('PEXPIRE', month, ARGV[8])
redis.call('PEXPIRE', pending, ARGV[8])
return {'ok', redis.call('HGET', month, 'epoch') or ''}`;

/**
 * Settles a reservation: its amount leaves `reserved`, the actual cost joins `spent`. A reservation that is
 * gone still counts its cost once when its lease had ended (`x:` mark) or when the month was lost and seeded
 * again since it was made (another epoch: a flush or restart), so that no settled cost vanishes; an id settled
 * before (same epoch, no mark) is left alone.
 */
const SETTLE = `${SEED}
local id, actual = ARGV[4], ARGV[5]
local amount = redis.call('HGET', month, 'r:' .. id)
local result = 0
if amount then
  redis.call('HDEL', month, 'r:' .. id)
  redis.call('ZREM', pending, id)
  if amount ~= '0' then redis.call('HINCRBY', month, 'reserved', '-' .. amount) end
  redis.call('HINCRBY', month, 'spent', actual)
  result = 1
elseif redis.call('HDEL', month, 'x:' .. id) == 1 then
  redis.call('HINCRBY', month, 'spent', actual)
  result = 2
elseif redis.call('HGET', month, 'epoch') ~= ARGV[6] and redis.call('HSETNX', month, 'd:' .. id, '1') == 1 then
  redis.call('HINCRBY', month, 'spent', actual)
  result = 3
end
redis.call('PEXPIRE', month, ARGV[7])
return {'settled', result}`;

/**
 * Raises `spent` to the store's settled spend (ARGV[1]) when it is lower: settles that never reached Redis
 * (kept through an outage by an instance that then stopped) are in the store's records. Both figures are at
 * most the true spend, so the larger one is too: this never counts a cost twice.
 */
const RAISE = `${BIG}
local month = KEYS[1]
local spent = redis.call('HGET', month, 'spent')
if not spent then return 0 end
local h, l = sum3(spent, '0', '0')
if above(h, l, ARGV[1]) then return 0 end
if spent == ARGV[1] then return 0 end
redis.call('HSET', month, 'spent', ARGV[1])
return 1`;

/**
 * Extends the lease of reservations of a running instance, and puts back the ones Redis let go while it could
 * not renew them: released when their lease ended during an outage (an `x:` mark), or lost with the month
 * (a restart without persistence, a flush). Their requests still run and will settle; without their amounts
 * in `reserved`, other requests were let through past the cap.
 */
const RENEW = `
local month, pending = KEYS[1], KEYS[2]
local renewed, restored = 0, 0
for i = 3, #ARGV, 2 do
  local id, amount = ARGV[i], ARGV[i + 1]
  if redis.call('HEXISTS', month, 'r:' .. id) == 0 then
    redis.call('HDEL', month, 'x:' .. id)
    if amount ~= '0' then redis.call('HINCRBY', month, 'reserved', amount) end
    redis.call('HSET', month, 'r:' .. id, amount)
    restored = restored + 1
  else
    renewed = renewed + 1
  end
  redis.call('ZADD', pending, ARGV[1], id)
end
redis.call('PEXPIRE', month, ARGV[2])
redis.call('PEXPIRE', pending, ARGV[2])
return {renewed, restored}`;

/**
 * A key's rate bucket (limiter.ts, \`RateBucket\`), with the same arithmetic as \`owedAt\`, \`bucketTime\` and
 * \`passes\` there.
 * Numbers are stored and returned as text with 17 digits (exact for a double; Redis would cut a returned
 * number to an integer). The hash lives until it owes nothing, and a minute more for clocks that differ.
 */
const HIT = `
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local state = redis.call('HMGET', KEYS[1], 'owed', 'at')
local owed = 0
local at = now
if state[1] then
  local last = tonumber(state[2])
  local elapsed = now - last
  if elapsed < 0 then elapsed = 0 end
  owed = tonumber(state[1]) - elapsed * limit / 60000
  if owed < 0 then owed = 0 end
  if last > now and last - 60000 <= now then at = last end
end
local allowed = 0
local after = owed
if owed + 1 <= limit + 1e-9 then
  allowed = 1
  after = owed + 1
end
redis.call('HSET', KEYS[1], 'owed', string.format('%.17g', after), 'at', string.format('%.17g', at))
redis.call('PEXPIRE', KEYS[1], math.ceil(after * 60000 / limit) + 60000)
return {allowed, string.format('%.17g', owed)}`;

export interface LuaScript {
  source: string;
  sha: string;
}

const script = (source: string): LuaScript => ({
  source,
  sha: createHash('sha1').update(source).digest('hex'),
});

/**
 * Every month script takes KEYS: month hash, pending set, and starts ARGV with: seed ('' = unknown), new epoch,
 * nowMs; each returns `{'seed'}` when the month is missing and no seed was given.
 */
export const limiterScripts = {
  /** KEYS: the key's bucket. ARGV: nowMs, limit. Returns \`{passed (0 or 1), owed before it (text)}\`. */
  hit: script(HIT),
  /**
   * ARGV: seed, epoch, nowMs, amount, cap (any size), id, leaseEndMs, monthTtlMs.
   * Returns `{'full', spent, reserved}` or `{'ok', epoch}`.
   */
  reserve: script(RESERVE),
  /** ARGV: seed, epoch, nowMs, id, actual, reservation's epoch, monthTtlMs. Returns `{'settled', 0|1|2|3}`. */
  settle: script(SETTLE),
  /** ARGV: seed, epoch, nowMs. Returns `{'usage', spent, reserved}`. */
  usage: script(USAGE),
  /**
   * KEYS: month hash, pending set. ARGV: leaseEndMs, monthTtlMs, then id and amount of each reservation.
   * Returns `{renewed, restored}`.
   */
  renew: script(RENEW),
  /** KEYS: month hash. ARGV: the store's spend. Returns 1 when `spent` was raised to it. */
  raise: script(RAISE),
};

/** Runs a script by its SHA, sending the source once when the server does not know it yet (NOSCRIPT). */
export function runScript(
  redis: Redis,
  lua: LuaScript,
  keys: readonly string[],
  args: readonly (string | number)[],
): Promise<unknown> {
  return redis.evalsha(lua.sha, keys.length, ...keys, ...args).catch((error: unknown) => {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return redis.eval(lua.source, keys.length, ...keys, ...args);
  });
}
