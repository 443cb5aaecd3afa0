import type { z } from 'zod';
import type { AdminOperations } from '../admin/operations.js';
import type { Principal } from '../auth/authenticate.js';
import type { RequestContext } from '../http/request-context.js';
import type { AppDeps } from './app-deps.js';

/** An admin request's caller: who (for the audit log) and the operations it may run. */
export interface AdminCaller {
  actor: string;
  ops: AdminOperations;
}

/** A route's handler and what it needs first: nothing, an organization's API key, or the admin token. */
export type Handler =
  | { auth: false; run: (ctx: RequestContext, deps: AppDeps) => void | Promise<void> }
  | {
      auth: true;
      run: (ctx: RequestContext, deps: AppDeps, principal: Principal) => void | Promise<void>;
      /**
       * `run`: the handler counts the request against the key's rate limit itself, so that a refusal gets
       * its generation record (the inference pipeline); else it is counted before the handler runs.
       */
      rateLimit?: 'run';
    }
  | { auth: 'admin'; run: (ctx: RequestContext, deps: AppDeps, caller: AdminCaller) => void | Promise<void> };

/** What the OpenAPI document says of a route; request schemas are the ones the handler validates with. */
export interface RouteDoc {
  summary: string;
  /** The group the route is listed under. */
  tag: string;
  description?: string;
  /** The JSON body the handler validates (absent: no body). */
  body?: z.ZodType;
  /** The query string the handler validates. */
  query?: z.ZodType;
  /** The success status (default 200). */
  status?: number;
  /** Also answers `text/event-stream` (streaming requests) or `text/csv` (exports). */
  alsoProduces?: 'text/event-stream' | 'text/csv';
  /** The success answer is not JSON (Prometheus text). */
  produces?: string;
}

/** One route of the gateway: method, path pattern, handler and its documentation. */
export interface AppRoute {
  method: string;
  /** `{name}` parameters; `{name+}` may span slashes. */
  pattern: string;
  handler: Handler;
  doc: RouteDoc;
}
