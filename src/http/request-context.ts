import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../auth/authenticate.js';
import type { RequestOutcome } from '../observability/request-outcome.js';
import type { Cancellation } from './cancellation.js';

/** One HTTP request as handlers see it. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  /** Headers every response of this request carries (`x-request-id`, later `x-generation-id`, ...). */
  headers: Record<string, string>;
  /** Aborted when the client goes away before the response ended. */
  signal: Cancellation;
  /** Path parameters of the matched route. */
  params: Record<string, string>;
  /** Monotonic ms when the request arrived. */
  receivedAt: number;
  /** The matched route's pattern (a bounded metrics label), `unmatched` until a route matched. */
  route: string;
  /** The authenticated caller, once known (for the access log). */
  principal?: Principal;
  /** What the inference pipeline found out, once its record is finished (read by the observer). */
  outcome?: RequestOutcome;
}
