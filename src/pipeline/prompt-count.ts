import type { RequestKind } from '../codecs/request-kind.js';
import type { JsonObject } from '../json/json.js';
import { countPaced, countRequestTokens } from '../optimizations/count-tokens.js';
import type { Run } from './run.js';

/**
 * A request's prompt counted with the tokenizer, for the calls billed without usage of their own (attempts
 * the gateway gave up on while their provider had the request, billed-failures.ts; a call the client
 * abandoned, abandoned-call.ts): counted once per prompt however many of them bill it, and started as soon
 * as the first needs it (a timed-out attempt's count runs while the next provider works).
 */
const counts = new WeakMap<JsonObject, Promise<number>>();

/** The tokens of `sent`, a prompt of `kind`; rejects when the tokenizer cannot load or count. */
export function countPrompt(run: Run, sent: JsonObject, kind: RequestKind): Promise<number> {
  let counting = counts.get(sent);
  if (counting === undefined) {
    counting = run.deps.tokenCounter
      .load()
      .then((count) => countPaced((counter) => countRequestTokens(sent, kind, counter), count));
    // Awaited by whoever bills it; one started ahead of them must not be an unhandled rejection meanwhile.
    counting.catch(() => undefined);
    counts.set(sent, counting);
  }
  return counting;
}
