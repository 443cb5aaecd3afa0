import type { IncomingHttpHeaders } from 'node:http';
import { AnswerRecorder } from '../cache/answer-recorder.js';
import { cacheKey } from '../cache/cache-key.js';
import { type CachedAnswer, decodeAnswer, encodeAnswer } from '../cache/cached-answer.js';
import { FORM_CAPABILITY, replayAdapter } from '../cache/replay-adapter.js';
import type { ResponseCache } from '../cache/response-cache.js';
import { faultForLog } from '../errors/fault-for-log.js';
import { badRequest, internalError } from '../errors/gateway-error.js';
import type { JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import type { UpstreamCall } from '../providers/provider-adapter.js';
import type { Organization } from '../store/store.js';
import type { ParsedRequest } from './endpoint.js';
import { type ExecutionReport, type ExecutionTarget, execute, type Served, servedModel } from './execute.js';
import type { Run } from './run.js';

/** The response header saying whether an answer came from the cache (organizations with the cache only). */
export const CACHE_HEADER = 'x-gateway-cache';

/** How a request asks to use the cache: normally, not at all (no read, no write), or write only. */
export type CacheDirective = 'use' | 'skip' | 'refresh';

/** What the cache step decided for one request. */
export interface CacheStep {
  key: string;
  ttlMs: number;
  /** The answer to serve: a hit. */
  hit?: CachedAnswer;
  /** A miss that may be kept: watches the provider's answer. */
  recorder?: AnswerRecorder;
  /** This request leads identical ones in flight: tells them its answer (or that there is none). */
  finishFlight?: (answer: string | undefined) => void;
}

/**
 * `Cache-Control: no-cache` (or `no-store`) and `x-gateway-cache: skip` bypass the cache; `x-gateway-cache:
 * refresh` skips the read but keeps the new answer. Any other `x-gateway-cache` value is a 400.
 */
export function cacheDirective(headers: IncomingHttpHeaders): CacheDirective {
  const control = headers['cache-control'];
  const tokens = (typeof control === 'string' ? control : '').toLowerCase().split(',');
  if (tokens.some((token) => ['no-cache', 'no-store'].includes(token.trim().split('=')[0] ?? ''))) {
    return 'skip';
  }
  const asked = headers[CACHE_HEADER];
  if (asked === undefined) return 'use';
  const value = (Array.isArray(asked) ? asked.join(',') : asked).trim().toLowerCase();
  if (value === 'skip' || value === 'refresh') return value;
  throw badRequest(`${CACHE_HEADER} must be "skip" or "refresh".`, CACHE_HEADER);
}

/**
 * The organization's response cache TTL in ms, as stored (set by the admin API, or the config at start);
 * undefined when its answers are not cached.
 */
export function cacheTtlMs(org: Organization): number | undefined {
  return org.cacheTtlSeconds === null ? undefined : org.cacheTtlSeconds * 1000;
}

/**
 * Every answer of an organization with the cache says `miss` (refusals by a limit included), until a hit says
 * otherwise. Called at the HTTP edge once the caller is known.
 */
export function markCacheable(
  cache: ResponseCache | undefined,
  org: Organization,
  headers: Record<string, string>,
): void {
  if (cache && cacheTtlMs(org) !== undefined) headers[CACHE_HEADER] = 'miss';
}

/** How a request that may use the cache asks to use it, read before preparation (see `cacheUseOf`). */
export interface CacheUse {
  cacheName: string;
  directive: CacheDirective;
}

/**
 * How the request asks to use the cache; undefined for organizations without the cache and endpoints that are
 * not cached. Read before preparation, so that an unknown `x-gateway-cache` value is a 400 before a planner or
 * a scorer is called (and billed).
 */
export function cacheUseOf(run: Run, cacheName: string | undefined): CacheUse | undefined {
  if (!run.deps.responseCache || cacheTtlMs(run.principal.org) === undefined || !cacheName) return undefined;
  return { cacheName, directive: cacheDirective(run.ctx.req.headers) };
}

/**
 * The cache step, after preparation (the key is made of the prepared body, so the effects of redaction,
 * optimizations, skills and a plan are in it): a hit; or a follower's wait for an identical request in flight;
 * or a miss whose answer will be kept. Nothing for organizations without the cache, endpoints that are not
 * cached, zero-data-retention requests and requests that bypass it.
 */
export function lookUpCache(
  run: Run,
  use: CacheUse | undefined,
  request: ParsedRequest,
  prepared: { model: string; body: JsonObject },
): Promise<CacheStep> | undefined {
  const { deps, principal } = run;
  const cache = deps.responseCache;
  const ttlMs = cacheTtlMs(principal.org);
  if (!cache || ttlMs === undefined || !use) return undefined;
  const { cacheName, directive } = use;
  if (directive === 'skip' || request.settings.zdr === true) {
    deps.metrics?.cacheLookup('bypass');
    return undefined;
  }
  return readCache(run, { cache, cacheName, ttlMs, directive }, request, prepared);
}

/**
 * Whose cached answers a request may read and write: the organization, as created when (an organization
 * deleted and created again under the same id is another one, and never gets the deleted one's answers).
 */
const cacheOwner = (org: Organization): string => `${org.id}\u0000${org.createdAt}`;

/** The cache step of a request that uses the cache: its key, and a hit, a followed flight or a miss. */
async function readCache(
  run: Run,
  use: { cache: ResponseCache; cacheName: string; ttlMs: number; directive: 'use' | 'refresh' },
  request: ParsedRequest,
  prepared: { model: string; body: JsonObject },
): Promise<CacheStep> {
  const { deps, ctx, principal } = run;
  const { cache, cacheName, ttlMs, directive } = use;
  const orgId = cacheOwner(principal.org);
  const key = cacheKey({ orgId, endpoint: cacheName, model: prepared.model, body: prepared.body });
  const step: CacheStep = { key, ttlMs };
  if (directive === 'use') {
    const usable = (answer: CachedAnswer | undefined) =>
      answer && (answer.streamable || !request.stream) ? answer : undefined;
    const found = usable(await cache.read(key, orgId));
    if (found) return hit(run, step, found);
    const waiting = cache.flights.follow(key, ctx.signal);
    if (waiting) {
      const text = await waiting;
      const followed = usable(text === undefined ? undefined : decodeAnswer(text, orgId));
      if (followed) return hit(run, step, followed);
    } else {
      step.finishFlight = cache.flights.lead(key);
    }
  }
  deps.metrics?.cacheLookup('miss');
  step.recorder = new AnswerRecorder(cache.maxEntryBytes);
  return step;
}

function hit(run: Run, step: CacheStep, answer: CachedAnswer): CacheStep {
  run.ctx.headers[CACHE_HEADER] = 'hit';
  run.deps.metrics?.cacheLookup('hit');
  step.hit = answer;
  return step;
}

/**
 * The execution step with the cache: a hit is served by replaying the cached answer through the endpoint's
 * own codec (no reservation, no provider, cost 0); a miss goes to `execute` with the provider's answer watched.
 */
export function executeOrReplay<T>(
  run: Run,
  target: ExecutionTarget<T>,
  step: CacheStep | undefined,
): Promise<Served<T>> {
  if (step?.hit) return replay(run, target, step.hit);
  const recorder = step?.recorder;
  if (!recorder) return execute(run, target);
  const attempt: ExecutionTarget<T>['attempt'] = (adapter, endpoint, call) =>
    target.attempt(recorder.wrap(adapter), endpoint, call);
  return execute(run, withMembers(target, { attempt }));
}

async function replay<T>(run: Run, target: ExecutionTarget<T>, answer: CachedAnswer): Promise<Served<T>> {
  // The endpoint that made the answer: its provider, and its model when a `models` fallback made it.
  const endpoint =
    target.plan.find(
      (e) => e.provider === answer.provider && e.modelId === (answer.model ?? target.model.id),
    ) ??
    target.plan.find((e) => e.provider === answer.provider) ??
    target.plan[0];
  if (!endpoint) throw internalError('No provider endpoint to answer a cached request under.');
  const call: UpstreamCall = {
    provider: withMembers(endpoint.providerConfig, { supportsSet: new Set([FORM_CAPABILITY[answer.form]]) }),
    upstreamModel: endpoint.model,
    signal: run.ctx.signal,
    timeoutMs: run.deps.config.server.upstreamTimeoutMs,
    requestId: run.ctx.requestId,
    maxOutputTokens: endpoint.maxOutputTokens,
  };
  const value = await target.attempt(replayAdapter(answer), endpoint, call);
  const cached = { savedNano: answer.costNano, provider: answer.provider };
  return { value, endpoint, model: servedModel(target, endpoint), target, cached };
}

/** Name, code and frames only: what failed may hold the answer's text in its message (faultForLog). */
function keepingFailed(run: Run, error: unknown): void {
  run.deps.log(`response cache: keeping the answer of ${run.genId} failed: ${faultForLog(error)}`);
}

/**
 * Ends the cache step, whatever happened: a complete, trusted answer of a request that succeeded is kept, and
 * identical requests waiting for it get it; otherwise they are told to go upstream themselves. Never throws.
 */
export async function finishCache(
  run: Run,
  step: CacheStep | undefined,
  execution: ExecutionReport | undefined,
  succeeded: boolean,
): Promise<void> {
  if (!step || step.hit) return;
  let text: string | undefined;
  const cache = run.deps.responseCache;
  try {
    const captured = succeeded && !run.ctx.signal.aborted ? step.recorder?.captured() : undefined;
    if (captured && cache && execution && !execution.untrusted && !execution.cached) {
      const { form, usage, warnings, streamable } = captured;
      const orgId = cacheOwner(run.principal.org);
      const { provider, model } = execution;
      // What the answer itself cost (what a hit saves), without attempts that failed before it.
      const costNano = Math.max(0, execution.costNano - (execution.failedNano ?? 0));
      text = encodeAnswer(
        { form, orgId, usage, costNano, provider, model, warnings, streamable },
        captured.bodyJson,
      );
    }
  } catch (error) {
    keepingFailed(run, error);
  }
  // Identical requests waiting for this answer get it now, not after the store's round trip.
  step.finishFlight?.(text);
  if (text === undefined || !cache) return;
  try {
    await cache.write(step.key, text, step.ttlMs);
  } catch (error) {
    keepingFailed(run, error);
  }
}
