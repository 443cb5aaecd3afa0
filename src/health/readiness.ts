import type { ServerResponse } from 'node:http';
import { sendJson } from '../http/respond.js';

/**
 * One dependency `GET /health/ready` looks at. `check` resolves when the dependency is usable and rejects
 * with a short reason when it is not (the reason is shown without authentication: it must not hold secrets).
 */
export interface ReadinessCheck {
  /** Member of `dependencies` in the answer: `store`, `redis`, `journal`, ... */
  name: string;
  check: () => Promise<void>;
}

export interface DependencyStatus {
  ok: boolean;
  error?: string;
}

export interface Readiness {
  status: 'ok' | 'unavailable';
  dependencies: Record<string, DependencyStatus>;
}

/** Longest reason shown per dependency. */
const MAX_REASON = 200;

/**
 * Runs every check at once, each bounded by `timeoutMs` (a dependency that does not answer in time is down),
 * and reports each one. Ready only when all are.
 */
export async function checkReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs: number,
): Promise<Readiness> {
  const results = await Promise.all(
    checks.map(async ({ name, check }): Promise<[string, DependencyStatus]> => {
      try {
        await bounded(check(), timeoutMs, name);
        return [name, { ok: true }];
      } catch (error) {
        return [name, { ok: false, error: reasonOf(error) }];
      }
    }),
  );
  const dependencies = Object.fromEntries(results);
  const ready = results.every(([, status]) => status.ok);
  return { status: ready ? 'ok' : 'unavailable', dependencies };
}

/** `GET /health/ready` (and `GET /health`): 200 when every dependency is usable, else 503, with the detail. */
export async function sendReadiness(
  res: ServerResponse,
  headers: Record<string, string>,
  checks: readonly ReadinessCheck[],
  timeoutMs: number,
): Promise<void> {
  const readiness = await checkReadiness(checks, timeoutMs);
  const extra: Record<string, string> = readiness.status === 'ok' ? {} : { 'retry-after': '1' };
  sendJson(res, readiness.status === 'ok' ? 200 : 503, readiness, { ...headers, ...extra });
}

/** `GET /health/live`: 200 while the process serves HTTP at all; it looks at no dependency. */
export function sendLiveness(res: ServerResponse, headers: Record<string, string>): void {
  sendJson(res, 200, { status: 'ok' }, headers);
}

function bounded(promise: Promise<void>, timeoutMs: number, name: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split('\n')[0] ?? '';
  return line.length > MAX_REASON ? `${line.slice(0, MAX_REASON - 1)}…` : line || 'unavailable';
}
