import { randomUUID } from 'node:crypto';
import { Warnings } from '../../codecs/shared/translation-warnings.js';
import { GatewayError } from '../../errors/gateway-error.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import type { JsonResult } from '../provider-adapter.js';
import { upstreamInvalid, vendorIdentifier } from '../shared/upstream-errors.js';
import { chatUsageOf, usageFromGemini } from './gemini-usage.js';

/** What the parts of one candidate (or one streamed chunk of it) say, in chat terms. */
export interface CandidateParts {
  text: string;
  /** Thought summaries (`thought: true` parts). */
  reasoning: string;
  toolCalls: JsonObject[];
  /**
   * Every part, as Gemini sent it, when some part has no chat equivalent (`executableCode`,
   * `codeExecutionResult`, `inlineData` …): it rides in `extra_content.google.parts`, so that the Gemini
   * ingress relays the answer whole, in its order.
   */
  native?: JsonObject[];
}

export const CONTENT_FILTER = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * A Gemini `GenerateContentResponse` as a chat completion: each candidate a choice, text parts joined into
 * `content`, thought parts into `reasoning_content`, function calls into `tool_calls`.
 * Reference: https://ai.google.dev/api/generate-content#generatecontentresponse
 */
export function toChatCompletion(
  response: JsonObject,
  upstreamModel: string,
  providerId: string,
  partsRelayed = false,
): JsonResult {
  const candidates = candidatesOf(response, providerId);
  const warnings = new Warnings();
  const choices = candidates.map((candidate, position) => {
    const parts = readParts(recordMember(candidate, 'content'), warnings, partsRelayed);
    const message: JsonObject = {
      role: 'assistant',
      content: parts.text === '' ? null : parts.text,
      refusal: null,
    };
    if (parts.reasoning !== '') message.reasoning_content = parts.reasoning;
    if (parts.toolCalls.length > 0) message.tool_calls = parts.toolCalls;
    if (parts.native) message.extra_content = { google: { parts: parts.native } };
    const reason = stringMember(candidate, 'finishReason');
    return {
      index: typeof candidate.index === 'number' ? candidate.index : position,
      message,
      logprobs: null,
      finish_reason: finishReason(reason, parts.toolCalls.length > 0, warnings),
    };
  });
  const usage = usageFromGemini(response.usageMetadata);
  return {
    body: {
      id: `chatcmpl-${stringMember(response, 'responseId') ?? randomUUID()}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: stringMember(response, 'modelVersion') ?? upstreamModel,
      choices,
      usage: chatUsageOf(usage),
    },
    usage,
    warnings: warnings.list,
  };
}

/** The candidates of a complete answer; a blocked prompt is the caller's 400, no candidates at all a 502. */
function candidatesOf(response: JsonObject, providerId: string): JsonObject[] {
  const candidates = (arrayMember(response, 'candidates') ?? []).filter(isRecord);
  if (candidates.length > 0) return candidates;
  throw promptBlocked(response, providerId) ?? upstreamInvalid(providerId, 'no candidates in the answer');
}

/** The error for a prompt Gemini refused to answer (`promptFeedback.blockReason`), if it was. */
export function promptBlocked(response: JsonObject, providerId: string): GatewayError | undefined {
  const feedback = recordMember(response, 'promptFeedback');
  if (stringMember(feedback, 'blockReason') === undefined) return undefined;
  // Named only when it is an identifier (`SAFETY`): the message is relayed and recorded, zdr or not.
  const reason = vendorIdentifier(stringMember(feedback, 'blockReason'));
  return new GatewayError(reason ? `Gemini blocked the prompt (${reason}).` : 'Gemini blocked the prompt.', {
    status: 400,
    code: 'BAD_REQUEST',
    type: 'invalid_request_error',
    provider: providerId,
    upstreamType: reason,
  });
}

/**
 * Text, thought summaries and function calls of a `Content`; when it has other part kinds, all its parts as
 * they came too (`native`), with a warning naming the kinds chat clients do not get in chat's own fields,
 * unless the client gets the parts whole (`partsRelayed`: the Gemini ingress).
 */
export function readParts(
  content: JsonObject | undefined,
  warnings: Warnings,
  partsRelayed = false,
): CandidateParts {
  const result: CandidateParts = { text: '', reasoning: '', toolCalls: [] };
  const parts = (arrayMember(content, 'parts') ?? []).filter(isRecord);
  for (const part of parts) {
    const call = recordMember(part, 'functionCall');
    const text = stringMember(part, 'text');
    if (call) result.toolCalls.push(toolCallOf(call, stringMember(part, 'thoughtSignature')));
    else if (text !== undefined && part.thought === true) result.reasoning += text;
    else if (text !== undefined) result.text += text;
    else {
      // A part may carry only a signature (or an empty thought); anything else has no chat equivalent.
      const kind = Object.keys(part).find((key) => key !== 'thoughtSignature' && key !== 'thought');
      // Named only when an identifier: warnings are kept in the record (zdr ones too), never upstream text.
      if (kind && !partsRelayed) {
        const named = vendorIdentifier(kind) ?? 'unknown';
        warnings.add(
          `Gemini answered with ${named} parts, which chat completions cannot carry: ` +
            'they are in extra_content.google.parts (the Gemini ingress relays them)',
        );
      }
      if (kind) result.native = parts;
    }
  }
  return result;
}

/**
 * A `functionCall` as a chat tool call with its arguments as a JSON string. Gemini may give no id, so one is
 * made; its thought signature rides in `extra_content.google.thought_signature` (the field Google's own
 * OpenAI-compatible endpoint uses) so that a client passing the message back returns it.
 */
export function toolCallOf(call: JsonObject, thoughtSignature: string | undefined): JsonObject {
  const args = isRecord(call.args) ? call.args : {};
  const toolCall: JsonObject = {
    id: stringMember(call, 'id') ?? `call_${randomUUID().replaceAll('-', '').slice(0, 24)}`,
    type: 'function',
    function: { name: stringMember(call, 'name') ?? '', arguments: JSON.stringify(args) },
  };
  if (thoughtSignature !== undefined) {
    toolCall.extra_content = { google: { thought_signature: thoughtSignature } };
  }
  return toolCall;
}

/**
 * Gemini's finish reason in chat terms. Reasons without an equivalent (OTHER, MALFORMED_FUNCTION_CALL ...)
 * finish as `stop`, with a warning naming them.
 */
export function finishReason(reason: string | undefined, hasToolCalls: boolean, warnings: Warnings): string {
  if (reason === 'STOP' || reason === undefined) return hasToolCalls ? 'tool_calls' : 'stop';
  if (reason === 'MAX_TOKENS') return 'length';
  if (CONTENT_FILTER.has(reason)) return 'content_filter';
  warnings.add(`Gemini finished with ${vendorIdentifier(reason) ?? 'an unknown reason'}`);
  return hasToolCalls ? 'tool_calls' : 'stop';
}
