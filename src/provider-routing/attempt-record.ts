/** One provider attempt of a request, as the record and a failed request's error body list it. */
export interface AttemptRecord {
  provider: string;
  /** The gateway's model slug tried (with `models` fallbacks, not always the one asked for). */
  model: string;
  /** The provider's own name of that model. */
  upstreamModel?: string;
  outcome: 'success' | 'error' | 'timeout' | 'cancelled';
  status: number | null;
  durationMs: number;
  error?: string;
  /** Set on the planning model's attempts (the others are the executor's). */
  role?: 'planner';
  /** On a retry of the same provider: its number (1 for the first retry). */
  retry?: number;
  /** On a retry: why the attempt before it failed (`upstream_error 503`, `upstream_error`). */
  retryReason?: string;
}
