import type { Usage } from '../../accounting/usage.js';
import type { ResolvedProvider } from '../../catalog/catalog.js';
import { NESTED_TOO_DEEP, parseKeepingSources } from '../../json/deferred-numbers.js';
import type { JsonObject } from '../../json/json.js';
import { MAX_NESTED_JSON_DEPTH } from '../../json/json-depth.js';
import { serializeJsonBody } from '../../json/source-bytes.js';
import type { PartStream } from '../part-stream.js';
import type { UpstreamCall } from '../provider-adapter.js';
import { type SsePartsOptions, sseParts } from './sse-parts.js';
import { classifyFailure, type UpstreamClient, type UpstreamResponse } from './upstream-client.js';
import { NESTED_TOO_DEEP_TEXT, upstreamInvalid } from './upstream-errors.js';

/**
 * Turns a provider's server-sent events into parts: each event as it comes, and the end of the stream; and,
 * where the provider reports usage while it streams, what it reported so far (`StreamResult.usageSoFar`).
 */
export type EventTranslator<Part> = Pick<SsePartsOptions<Part>, 'onEvent' | 'onEnd'> & {
  usageSoFar?: () => Usage | undefined;
};

/** How an adapter talks to its provider: JSON bodies out, JSON or server-sent events back. */
export interface JsonPoster {
  /** POSTs the body to `<baseUrl path><path>`; resolves once the answer's headers arrived (2xx only). */
  post(path: string, body: JsonObject, call: UpstreamCall): Promise<UpstreamResponse>;
  /**
   * POSTs and reads the whole answer as JSON; a body that is not JSON is an invalid upstream answer. The
   * members named in `keep` (of a JSON object) remember the bytes they were read from and are frozen
   * (json/source-bytes.ts), so that an answer that passes them on unchanged writes those bytes instead of
   * serialising them again: an embedding of 1,536 numbers takes 160 µs to serialise. Arrays of numbers inside
   * them are read only when used (json/deferred-numbers.ts).
   */
  postJson(path: string, body: JsonObject, call: UpstreamCall, keep?: readonly string[]): Promise<unknown>;
  /**
   * The answer's server-sent events translated into parts as they are read (sse-parts.ts); a failed read
   * (reset, abort) is classified as the gateway's error.
   */
  parts<Part>(
    response: UpstreamResponse,
    call: UpstreamCall,
    translate: EventTranslator<Part>,
  ): PartStream<Part>;
}

/** The poster of one provider: base URL parsed once, the provider's headers on every request. */
export function createJsonPoster(
  provider: ResolvedProvider,
  client: UpstreamClient,
  headers: Record<string, string>,
): JsonPoster {
  const base = new URL(provider.baseUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const post = (path: string, body: JsonObject, call: UpstreamCall): Promise<UpstreamResponse> =>
    client({ origin: base.origin, path: basePath + path, headers, body: serializeJsonBody(body), call });
  return {
    post,
    async postJson(path, body, call, keep = []) {
      const response = await post(path, body, call);
      let bytes: Buffer;
      try {
        bytes = await response.body.bytes();
      } catch (error) {
        throw classifyFailure(error, call);
      }
      const parsed = parseKeepingSources(bytes, keep, MAX_NESTED_JSON_DEPTH);
      if (parsed === NESTED_TOO_DEEP) throw upstreamInvalid(provider.id, NESTED_TOO_DEEP_TEXT);
      if (parsed === undefined) throw upstreamInvalid(provider.id, 'the body is not JSON');
      return parsed;
    },
    parts: (response, call, translate) =>
      sseParts(response.body, {
        mapError: (error) => classifyFailure(error, call),
        onEvent: translate.onEvent,
        onEnd: translate.onEnd,
      }),
  };
}
