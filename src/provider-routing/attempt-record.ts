/** One provider attempt of a request, as the record and a failed request's error body list it. */
export interface AttemptRecord {
  provider: string;
  model: string;
  outcome: 'success' | 'error' | 'timeout' | 'cancelled';
  status: number | null;
  durationMs: number;
  error?: string;
  /** Set on the planning model's attempts (the others are the executor's). */
  role?: 'planner';
}
