import { announcesResponse } from '../../codecs/responses/announcing-events.js';
import { isRecord, type JsonObject, recordMember } from '../../json/json.js';
import type { ResponsesStreamPart, UpstreamCall } from '../provider-adapter.js';
import { isDoneMarker, sseParts } from '../shared/sse-parts.js';
import { classifyFailure, type UpstreamBody } from '../shared/upstream-client.js';
import {
  parseUpstreamJson,
  upstreamInvalid,
  upstreamStreamError,
  upstreamTextContext,
} from '../shared/upstream-errors.js';
import { scrubResponsesErrorText } from './responses-error-text.js';

/** The events that end a Responses stream. */
const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Responses events, validated as JSON objects with a `type`. An upstream `error` event fails the stream with
 * a gateway error (its words made safe), and so does a stream that ends (closed, or `[DONE]`) before its
 * terminal event: the client gets the gateway's own failure frames and the request is billed as a stream cut
 * short. So does a `response.failed` before any output that reports no usage (nothing the provider bills):
 * until then the attempt is not committed to, and another provider may answer (see pipeline/open-stream.ts).
 */
export function responsesEventParts(
  body: UpstreamBody,
  providerId: string,
  upstream: { call: UpstreamCall; sent: unknown },
) {
  const { call } = upstream;
  // The vendor's words are checked against the request too (withheld when they quote it).
  const text = upstreamTextContext(call.provider, upstream.sent);
  let finished = false;
  let output = false;
  return sseParts<ResponsesStreamPart>(body, {
    mapError: (error) => classifyFailure(error, call),
    onEnd() {
      if (!finished) throw upstreamInvalid(providerId, 'the stream ended before it finished');
    },
    onEvent(message, emit) {
      if (isDoneMarker(message.data)) return;
      const event = parseUpstreamJson(providerId, message.data);
      if (!isRecord(event) || typeof event.type !== 'string') {
        throw upstreamInvalid(providerId, 'a stream event is not a Responses event');
      }
      if (event.type === 'error') throw upstreamStreamError(providerId, vendorError(event), text);
      if (event.type === 'response.failed' && !output && !billed(recordMember(event, 'response'))) {
        throw upstreamStreamError(providerId, failureOf(event), text);
      }
      output ||= !announcesResponse(event.type);
      scrubResponsesErrorText(event, text);
      if (TERMINAL_EVENTS.has(event.type)) finished = true;
      emit({ type: 'event', event });
    },
  });
}

/** The error of a `response.failed` event (`response.error`), or its status when it has none. */
function failureOf(event: JsonObject): unknown {
  const response = recordMember(event, 'response');
  return recordMember(response, 'error') ?? { message: 'the response failed', type: 'response.failed' };
}

/** Whether a response reports tokens used (which its provider bills, failed or not). */
function billed(response: JsonObject | undefined): boolean {
  const usage = recordMember(response, 'usage');
  return usage !== undefined && (Number(usage.input_tokens) > 0 || Number(usage.output_tokens) > 0);
}

/**
 * The vendor's error of a Responses `error` event: Open Responses' `error` payload, else OpenAI's top-level
 * `code` and `message` (`type` there is the event's own, `error`).
 * Reference: https://platform.openai.com/docs/api-reference/responses-streaming/error
 */
function vendorError(event: JsonObject): JsonObject {
  return recordMember(event, 'error') ?? { code: event.code, message: event.message };
}
