import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import { redactChatMessages, redactResponsesInput } from '../optimizations/redact/redact-request.js';
import type { JsonObject } from '../providers/shared/json.js';
import type { InferenceRun } from './run-inference.js';

/** The request shapes the pipeline steps understand (the Messages ingress is translated to chat first). */
export type RequestKind = 'chat' | 'responses';

/**
 * The pipeline between parsing and routing, in its declared order: redaction first (so that nothing after
 * it, and no provider, ever sees the original values), then the token optimizations. Returns the request to
 * send; the original is never modified.
 */
export async function prepareRequest(
  run: InferenceRun,
  kind: RequestKind,
  body: JsonObject,
  settings: GatewaySettings,
): Promise<JsonObject> {
  return settings.redact ? redact(kind, body, settings.redact) : body;
}

function redact(
  kind: RequestKind,
  body: JsonObject,
  settings: NonNullable<GatewaySettings['redact']>,
): JsonObject {
  if (kind === 'chat') {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    return { ...body, messages: redactChatMessages(messages, settings).messages };
  }
  const { input, instructions } = redactResponsesInput(body.input, body.instructions, settings);
  const redacted: JsonObject = { ...body, input };
  if (instructions !== undefined) redacted.instructions = instructions;
  return redacted;
}
