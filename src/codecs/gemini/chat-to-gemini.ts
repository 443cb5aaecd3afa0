import type { Usage } from '../../accounting/usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { tryParseNestedJson } from '../../json/json-depth.js';
import { withMembers } from '../../json/with-members.js';
import { replayableThinkingBlocks } from '../messages/thinking-blocks.js';
import { contentText } from '../shared/content-text.js';
import { planningUsageBody, type UsageMeta } from '../shared/usage-body.js';
import { newCallId } from './gemini-contents-to-chat.js';

/** What a Gemini answer takes from the request and the gateway rather than from the chat answer. */
export interface GeminiAnswerMeta {
  /** `responseId`: the request's `gen_` id, the key of its generation record. */
  id: string;
  /** `modelVersion`: the model slug that answered. */
  model: string;
  /** Whether unsigned reasoning text is sent as thought parts (the request's `includeThoughts`). */
  includeThoughts: boolean;
}

/** Chat's `finish_reason` as Gemini's `finishReason` (a tool call ends with STOP, as Gemini's do). */
export function toFinishReason(finishReason: unknown): string {
  if (finishReason === 'length') return 'MAX_TOKENS';
  if (finishReason === 'content_filter') return 'SAFETY';
  if (finishReason === 'stop' || finishReason === 'tool_calls' || finishReason === 'function_call') {
    return 'STOP';
  }
  return finishReason === undefined || finishReason === null ? 'STOP' : 'OTHER';
}

/**
 * Canonical usage in Gemini's convention: `promptTokenCount` includes the cached tokens
 * (`cachedContentTokenCount`), `candidatesTokenCount` excludes thinking (`thoughtsTokenCount`); the
 * inverse of the Gemini adapter's `usageFromGemini`.
 * Reference: https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function geminiUsage(usage: Usage): JsonObject {
  return {
    promptTokenCount: usage.inputTokens,
    candidatesTokenCount: Math.max(0, usage.outputTokens - usage.reasoningTokens),
    totalTokenCount: usage.inputTokens + usage.outputTokens,
    cachedContentTokenCount: usage.cachedInputTokens,
    thoughtsTokenCount: usage.reasoningTokens,
  };
}

/**
 * `usageMetadata` of an answer: Gemini's counts plus the gateway's `cost` (integer nano-USD, contract §5)
 * and `planning_usage_details`, under the contract's names.
 */
export function geminiUsageMetadata(meta: UsageMeta): JsonObject {
  return withMembers(geminiUsage(meta.usage), {
    cost: meta.costNano,
    planning_usage_details: planningUsageBody(meta.planningUsage, meta.planningCostNano),
  });
}

/**
 * A chat tool call as a `functionCall` part (arguments that are not a JSON object become `{}`); a Gemini
 * thought signature goes back on the part.
 */
export function functionCallPart(call: unknown, argumentsText?: string): JsonObject {
  const fn = recordMember(call, 'function');
  const text = argumentsText ?? stringMember(fn, 'arguments') ?? '';
  const args = text.trim() === '' ? {} : tryParseNestedJson(text);
  const functionCall = {
    id: stringMember(call, 'id') ?? newCallId(),
    name: stringMember(fn, 'name') ?? '',
    args: isRecord(args) ? args : {},
  };
  const signature = stringMember(
    recordMember(recordMember(call, 'extra_content'), 'google'),
    'thought_signature',
  );
  return signature === undefined ? { functionCall } : { functionCall, thoughtSignature: signature };
}

/** Claude's signed thinking blocks as thought parts carrying the signature (sent back to replay them). */
export function signedThoughtParts(blocks: unknown, withText: boolean): JsonObject[] {
  return replayableThinkingBlocks(blocks).flatMap((block) => {
    const signature = stringMember(block, 'signature');
    if (!signature) return [];
    const text = withText ? (stringMember(block, 'thinking') ?? '') : '';
    return [{ text, thought: true, thoughtSignature: signature }];
  });
}

/**
 * The parts a Gemini provider sent as they came (`extra_content.google.parts`: its answer had parts chat has
 * no field for, such as `executableCode`), if it did.
 */
export function nativeParts(message: JsonObject | undefined): unknown[] | undefined {
  return arrayMember(recordMember(recordMember(message, 'extra_content'), 'google'), 'parts');
}

/**
 * A relayed thought part as the client asked for it: whole with `includeThoughts`, else only its signature
 * (as Claude's signed thinking is sent), or nothing. The gateway asks Gemini for thoughts whenever it asks
 * for thinking, so the provider's parts may hold thoughts this client did not ask for.
 */
export function shownPart(part: JsonObject, includeThoughts: boolean): JsonObject | undefined {
  if (part.thought !== true || includeThoughts) return part;
  const signature = stringMember(part, 'thoughtSignature');
  return signature === undefined ? undefined : { text: '', thought: true, thoughtSignature: signature };
}

/** A Gemini provider's parts relayed in their order; each `functionCall` is the chat tool call's (its id). */
function relayedParts(native: unknown[], calls: unknown[], includeThoughts: boolean): JsonObject[] {
  const parts: JsonObject[] = [];
  let next = 0;
  for (const part of native) {
    if (!isRecord(part)) continue;
    const call = part.functionCall === undefined ? undefined : calls[next++];
    const shown = call === undefined ? shownPart(part, includeThoughts) : functionCallPart(call);
    if (shown) parts.push(shown);
  }
  for (const call of calls.slice(next)) parts.push(functionCallPart(call));
  return parts;
}

/**
 * The parts of a chat answer message: thoughts, text (and refusal), then function calls; a Gemini provider's
 * own parts as they came when it sent parts chat has no field for.
 */
function partsOf(message: JsonObject | undefined, includeThoughts: boolean): JsonObject[] {
  const native = nativeParts(message);
  if (native) return relayedParts(native, arrayMember(message, 'tool_calls') ?? [], includeThoughts);
  const parts: JsonObject[] = [];
  const signed = signedThoughtParts(message?.thinking_blocks, true);
  const reasoning = stringMember(message, 'reasoning_content') ?? stringMember(message, 'reasoning');
  if (signed.length > 0) for (const one of signed) parts.push(one);
  else if (includeThoughts && reasoning) parts.push({ text: reasoning, thought: true });
  const text = contentText(message?.content);
  if (text !== '') parts.push({ text });
  const refusal = stringMember(message, 'refusal');
  if (refusal) parts.push({ text: refusal });
  for (const call of arrayMember(message, 'tool_calls') ?? []) parts.push(functionCallPart(call));
  return parts;
}

/**
 * Translates a chat completion into a Gemini `GenerateContentResponse`: one candidate per choice, its parts
 * (thought summaries when asked for, text, function calls with their ids), `finishReason`, and
 * `usageMetadata` with cost.
 * Reference: https://ai.google.dev/api/generate-content#generatecontentresponse
 */
export function chatToGemini(chat: JsonObject, meta: GeminiAnswerMeta & { usage: UsageMeta }): JsonObject {
  const candidates = (arrayMember(chat, 'choices') ?? []).filter(isRecord).map((choice, position) => ({
    content: { role: 'model', parts: partsOf(recordMember(choice, 'message'), meta.includeThoughts) },
    finishReason: toFinishReason(choice.finish_reason),
    index: typeof choice.index === 'number' ? choice.index : position,
  }));
  return {
    candidates,
    usageMetadata: geminiUsageMetadata(meta.usage),
    modelVersion: meta.model,
    responseId: meta.id,
  };
}
