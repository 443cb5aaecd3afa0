import { Redis } from 'ioredis';
import { isRecord } from '../json/json.js';
import type { HealthTracker, Sample } from './health-tracker.js';

const WINDOW_MS = 31 * 60_000;
const MAX_SAMPLES = 2_000;

export interface RedisHealthSyncOptions {
  redisUrl: string;
  tracker: HealthTracker;
  /** How often to share and refresh; routing sees other instances' figures this late at most. */
  intervalMs?: number;
  keyPrefix?: string;
  log: (message: string) => void;
}

/**
 * Shares health figures between gateway instances through Redis (CONTRACT §1: REDIS_URL shares health
 * stats): every interval, this instance's new samples and cool-downs are appended, and the tracker's
 * figures are replaced by everyone's. Off the request path: requests read the local tracker only; a Redis
 * outage leaves each instance with its own figures (logged), never fails a request.
 */
export function startRedisHealthSync(options: RedisHealthSyncOptions): () => Promise<void> {
  const { tracker, log } = options;
  const prefix = options.keyPrefix ?? 'gateway:health:';
  const redis = new Redis(options.redisUrl, { maxRetriesPerRequest: 1, connectTimeout: 2_000 });
  redis.on('error', () => undefined);
  tracker.shareObservations();
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(() => sync(redis, tracker, prefix))
      .catch((error: unknown) => {
        log(`health sync with Redis failed (figures stay per instance meanwhile): ${String(error)}`);
      });
  }, options.intervalMs ?? 1_000);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
    redis.disconnect();
  };
}

async function sync(redis: Redis, tracker: HealthTracker, prefix: string): Promise<void> {
  const keysSet = `${prefix}keys`;
  const cooldownsHash = `${prefix}cooldowns`;
  const outbox = tracker.takeOutbox();
  const write = redis.multi();
  for (const { key, sample } of outbox.samples) {
    write.rpush(`${prefix}s:${key}`, JSON.stringify(sample));
    write.sadd(keysSet, key);
  }
  for (const key of new Set(outbox.samples.map((entry) => entry.key))) {
    write.ltrim(`${prefix}s:${key}`, -MAX_SAMPLES, -1);
    write.pexpire(`${prefix}s:${key}`, WINDOW_MS);
  }
  for (const [providerId, until] of outbox.cooldowns) write.hset(cooldownsHash, providerId, String(until));
  if (outbox.samples.length > 0 || outbox.cooldowns.size > 0) await write.exec();

  const keys = await redis.smembers(keysSet);
  const read = redis.pipeline();
  for (const key of keys) read.lrange(`${prefix}s:${key}`, 0, -1);
  const lists = keys.length > 0 ? ((await read.exec()) ?? []) : [];
  const samples = new Map<string, Sample[]>();
  keys.forEach((key, index) => {
    const [error, entries] = lists[index] ?? [];
    if (!error && Array.isArray(entries)) samples.set(key, entries.flatMap(parseSample));
  });
  const cooldowns = new Map<string, number>();
  for (const [providerId, until] of Object.entries(await redis.hgetall(cooldownsHash))) {
    const value = Number(until);
    if (Number.isFinite(value)) cooldowns.set(providerId, value);
  }
  tracker.absorb(samples, cooldowns);
}

function parseSample(text: unknown): Sample[] {
  if (typeof text !== 'string') return [];
  try {
    const value: unknown = JSON.parse(text);
    if (!isRecord(value)) return [];
    const { at, ok, ttftMs, tokensPerSecond } = value;
    if (typeof at !== 'number' || typeof ok !== 'boolean') return [];
    return [
      {
        at,
        ok,
        ttftMs: typeof ttftMs === 'number' ? ttftMs : undefined,
        tokensPerSecond: typeof tokensPerSecond === 'number' ? tokensPerSecond : undefined,
      },
    ];
  } catch {
    return [];
  }
}
