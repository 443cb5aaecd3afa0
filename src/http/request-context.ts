import type { IncomingMessage, ServerResponse } from 'node:http';

/** One HTTP request as handlers see it. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  requestId: string;
  /** Headers every response of this request carries (`x-request-id`, later `x-generation-id`, ...). */
  headers: Record<string, string>;
  /** Aborted when the client goes away before the response ended. */
  signal: AbortSignal;
  /** Path parameters of the matched route. */
  params: Record<string, string>;
}
