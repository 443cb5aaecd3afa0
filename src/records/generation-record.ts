import type { AttemptRecord } from '../provider-routing/attempt-record.js';

/**
 * What the gateway keeps about one inference request. Never prompt or completion text.
 * Money: `reqCost`, `planningCost` and `routingCost` are USD as decimal numbers (contract §5);
 * `costNanoUsd` is the request's whole model usage (executor plus planner) in integer nano-USD.
 */
export interface GenerationRecord {
  genId: string;
  orgId: string;
  apiKeyId: string;
  /** Model slug the caller asked for / was routed to. */
  model: string;
  /** Provider that served the request ('' when none did). */
  provider: string;
  /** Endpoint path, e.g. `/v1/chat/completions`. */
  path: string;
  /** `interrupted`: the gateway process ended (crash, kill) before the request finished; written at the next start. */
  status: 'success' | 'error' | 'cancelled' | 'interrupted';
  httpStatus: number;
  errorCode: string | null;
  errorMessage: string | null;
  streamed: boolean;
  totalDurationMs: number;
  durationMsToFirstToken: number;
  /** ISO-8601. */
  createdAt: string;
  reqCost: number;
  costNanoUsd: number;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  planningInputTokens: number;
  planningOutputTokens: number;
  planningCost: number;
  loadedTools: string;
  routingCost: number;
  optimizationPercentage: number;
  score: number;
  skills: string;
  tag: string;
  /** Whether a planning model ran: not asked for / not triggered, used, or failed (executor answered alone). */
  planningStatus: 'none' | 'used' | 'failed';
  attempts: AttemptRecord[];
  warnings: string[];
  /** Answered from the response cache (absent on records written before the cache existed: false). */
  cached?: boolean;
  /** What a cached answer would have cost, nano-USD (0 when not cached). */
  costSavedNanoUsd?: number;
}

/** The record as JSON text: the journal's finish line holds it whole (a store row holds less, see record-body.ts). */
export function recordJson(record: GenerationRecord): string {
  return JSON.stringify(record);
}
