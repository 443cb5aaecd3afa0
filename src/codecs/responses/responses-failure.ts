import type { GatewayError } from '../../errors/gateway-error.js';
import type { JsonObject } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { normalizeResponse } from './response-defaults.js';

/**
 * The `error.code` of a failed Response: OpenAI's `ResponseErrorCode` is an enum, so the gateway's failure
 * is told by its status (429 rate limit, 400 a prompt the upstream refused, anything else a server error).
 */
export function responseErrorCode(error: GatewayError): string {
  if (error.status === 429) return 'rate_limit_exceeded';
  if (error.status === 400) return 'invalid_prompt';
  return 'server_error';
}

/**
 * The events that end a Responses stream failing after its first byte (contract §6): an `error` event, in
 * the shape of both OpenAI's `ResponseErrorEvent` (top-level `code`, `message`, `param`) and Open Responses'
 * `ErrorStreamingEvent` (`error` payload), then `response.failed` carrying the whole response as the client
 * knew it (`snapshot`: the writer's `snapshot()`, with the items already done) with status `failed` and a
 * spec error. Give them to the stream's `responsesEventWriter`, which numbers them, then send `[DONE]`.
 */
export function responsesFailureEvents(error: GatewayError, snapshot: JsonObject = {}): JsonObject[] {
  const code = error.code ?? error.type;
  const failed = normalizeResponse(
    withMembers(snapshot, {
      status: 'failed',
      completed_at: null,
      incomplete_details: null,
      error: { code: responseErrorCode(error), message: error.message },
    }),
  );
  return [
    {
      type: 'error',
      sequence_number: 0,
      code,
      message: error.message,
      param: error.param,
      error: { type: error.type, code, message: error.message, param: error.param },
    },
    { type: 'response.failed', sequence_number: 0, response: failed },
  ];
}
