import type { RequestKind } from '../codecs/request-kind.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import type { JsonObject } from '../json/json.js';
import { runOptimizations } from '../optimizations/run-optimizations.js';
import { redactChatMessages, redactResponsesInput } from '../privacy/redact-request.js';
import type { Scorer } from '../scoring/scorer.js';
import type { InferenceRun } from './run-inference.js';

/**
 * First step of the pipeline: redaction, so that nothing after it — scorers that call models, providers,
 * stored conversation state — ever sees the original values. Returns a new request; the original is kept.
 */
export function redactRequest(kind: RequestKind, body: JsonObject, settings: GatewaySettings): JsonObject {
  const redact = settings.redact;
  if (!redact) return body;
  if (kind === 'chat') {
    const messages = Array.isArray(body.messages) ? body.messages : [];
    return { ...body, messages: redactChatMessages(messages, redact).messages };
  }
  const { input, instructions } = redactResponsesInput(body.input, body.instructions, redact);
  const redacted: JsonObject = { ...body, input };
  if (instructions !== undefined) redacted.instructions = instructions;
  return redacted;
}

/**
 * The token optimizations (media, history compression, tool selection, in that order); their report goes to
 * the generation record (`optimizationPercentage`, `loadedTools`).
 */
export async function optimizeRequest(
  run: InferenceRun,
  kind: RequestKind,
  body: JsonObject,
  settings: GatewaySettings,
  scorer: Scorer,
): Promise<JsonObject> {
  const { request, report } = await runOptimizations(body, kind, settings, scorer);
  run.tracker.optimizationPercentage = report.optimizationPercentage;
  run.tracker.loadedTools = report.loadedTools;
  return request;
}
