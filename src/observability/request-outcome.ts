import type { AppDeps } from '../app/app-deps.js';
import type { EndpointKind } from '../config/config-schema.js';
import type { GatewayError } from '../errors/gateway-error.js';
import type { JsonObject } from '../json/json.js';
import type { GenerationRecord } from '../records/generation-record.js';
import type { RequestSpan } from './tracing.js';

/** What an inference request leaves for the observer once its record is finished. */
export interface RequestOutcome {
  record: GenerationRecord;
  error: GatewayError | undefined;
  /** GenAI operation name: `chat`, `embeddings`, `generate_content`. */
  operation: string;
  span: RequestSpan;
  /** The prompt as sent upstream, only when the operator opted in to content on spans and not for zdr. */
  content: string | undefined;
}

/** The GenAI semantic conventions' operation name of an endpoint kind. */
export function operationName(kind: EndpointKind): string {
  if (kind === 'embeddings') return 'embeddings';
  if (kind === 'images') return 'generate_content';
  return 'chat';
}

/**
 * The prompt as sent upstream (after redaction), for the request span: only when the operator turned on
 * `tracing.captureContent`, the request is traced, and never for a zdr request. Cut to `maxContentChars`.
 */
export function promptForSpan(
  deps: Pick<AppDeps, 'tracing' | 'config'>,
  request: { zdr: boolean; sent?: JsonObject },
): string | undefined {
  const { tracing, config } = deps;
  const { sent } = request;
  if (!tracing.enabled || !config.tracing.captureContent || request.zdr || !sent) return undefined;
  const prompt = sent.messages ?? sent.input ?? sent.prompt;
  if (prompt === undefined) return undefined;
  const text = typeof prompt === 'string' ? prompt : JSON.stringify(prompt);
  const max = config.tracing.maxContentChars;
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
