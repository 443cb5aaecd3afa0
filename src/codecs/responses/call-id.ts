import { isRecord, type JsonObject } from '../../json/json.js';
import { readSignedCallId, signedCallId, thoughtSignatureOf } from '../shared/thought-signature.js';

/**
 * Responses `call_id`s of calls answered over chat. A call's chat id is its `call_id`, but for a call with a
 * Gemini thought signature, which a `function_call` item has no field for: that one goes out as `call_gs_…`,
 * carrying the signature too (see shared/thought-signature.ts), and comes back signed in the client's next
 * request (the `function_call` item and its `function_call_output` both name it).
 */
const SIGNED_PREFIX = 'call_gs_';

/** The `call_id` a client sees for a chat tool call with this id (`toolCall` gives its signature, if any). */
export function clientCallId(id: string, toolCall: unknown): string {
  const signature = thoughtSignatureOf(toolCall);
  return signature === undefined ? id : signedCallId(SIGNED_PREFIX, id, signature);
}

/** The chat tool call id of a `call_id` a client sent back, and its thought signature if it carried one. */
export function upstreamCall(callId: string): { id: string; thoughtSignature?: string } {
  const signed = readSignedCallId(SIGNED_PREFIX, callId);
  return signed ? { id: signed.id, thoughtSignature: signed.signature } : { id: callId };
}

/**
 * A Responses request for a provider that serves Responses natively: the `call_id`s this gateway made
 * (`call_gs_…`, from a turn another provider answered over chat) as the provider's own ids again, short as
 * upstreams expect them. `body` itself when it has none.
 */
export function withUpstreamCallIds(body: JsonObject): JsonObject {
  const input = body.input;
  if (!Array.isArray(input) || !input.some(signedItem)) return body;
  const items = input.map((item) =>
    signedItem(item) ? { ...item, call_id: upstreamCall(item.call_id).id } : item,
  );
  return { ...body, input: items };
}

function signedItem(item: unknown): item is JsonObject & { call_id: string } {
  return isRecord(item) && typeof item.call_id === 'string' && item.call_id.startsWith(SIGNED_PREFIX);
}
