import { randomUUID } from 'node:crypto';
import type { Usage } from '../../accounting/usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { tryParseNestedJson } from '../../json/json-depth.js';
import { withMembers } from '../../json/with-members.js';
import { contentText } from '../shared/content-text.js';
import { reasoningText } from '../shared/reasoning-text.js';
import { thoughtSignatureOf } from '../shared/thought-signature.js';
import { planningUsageBody, type UsageMeta } from '../shared/usage-body.js';
import { replayableThinkingBlocks } from './thinking-blocks.js';
import { toClientToolUseId } from './tool-use-id.js';

/** What the Messages answer takes from the request and the gateway rather than from the chat answer. */
export interface MessageMeta {
  /** The message id: the request's `gen_` id, the key of its generation record. */
  id: string;
  /** The model slug the caller asked for. */
  model: string;
  /** The request's `stop_sequences`, to tell a stop sequence from a natural end where the upstream says. */
  stopSequences: readonly string[];
}

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

/** A tool-use id for a tool call the upstream sent without one. */
export const newToolUseId = (): string => `toolu_${randomUUID().replaceAll('-', '')}`;

/**
 * Anthropic's usage convention: `input_tokens` EXCLUDES cached reads and cache writes, which are counted
 * apart (the canonical `inputTokens` includes them, as OpenAI's `prompt_tokens` does). Every key the
 * published `Usage` requires is there: what the gateway cannot know (the cache writes' split by TTL, where
 * inference ran, the upstream's service tier) is `null`, as the schema allows.
 */
export function messagesUsage(usage: Usage): JsonObject {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteTokens),
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cachedInputTokens,
    cache_creation: null,
    output_tokens: usage.outputTokens,
    output_tokens_details: { thinking_tokens: usage.reasoningTokens },
    server_tool_use: { web_search_requests: usage.webSearchCalls, web_fetch_requests: 0 },
    inference_geo: null,
    service_tier: null,
  };
}

/** `stop_details` of a Messages answer: the refusal's (category unknown through chat), else null. */
export const stopDetails = (stopReason: StopReason): JsonObject | null =>
  stopReason === 'refusal' ? { type: 'refusal', category: null, explanation: null } : null;

/** A text block as the published schema has it (`citations`, null: chat upstreams give none). */
export const textBlock = (text: string): JsonObject => ({ type: 'text', text, citations: null });

/**
 * A tool_use block: the id in the `toolu_` form (carrying the call's Gemini thought signature, if any), called
 * directly by the model (`caller`).
 */
export const toolUseBlockOf = (
  id: string,
  name: string,
  input: JsonObject,
  thoughtSignature?: string,
): JsonObject => ({
  type: 'tool_use',
  id: toClientToolUseId(id, thoughtSignature),
  name,
  input,
  caller: { type: 'direct' },
});

/** The answer's `usage`: Anthropic's figures plus our `cost` (integer nano-USD) and the planner's part. */
export function messagesUsageBody(meta: UsageMeta): JsonObject {
  return withMembers(messagesUsage(meta.usage), {
    cost: meta.costNano,
    planning_usage_details: planningUsageBody(meta.planningUsage, meta.planningCostNano),
  });
}

/**
 * The stop sequence that ended the answer, where the upstream names it (vLLM's `stop_reason`, SGLang's
 * `matched_stop`) and it is one of the request's. OpenAI does not say, so its answers end in `end_turn`.
 */
export function matchedStopSequence(choice: unknown, stopSequences: readonly string[]): string | undefined {
  for (const key of ['stop_reason', 'matched_stop']) {
    const value = stringMember(choice, key);
    if (value !== undefined && stopSequences.includes(value)) return value;
  }
  return undefined;
}

/**
 * Chat's `finish_reason` as Messages' `stop_reason`. `tool_use` only when the answer has a `tool_use` block:
 * a server may say `tool_calls` with no call made (vLLM with `tool_choice: "required"` when no call was
 * parsed), and a client that runs its tools on `tool_use` would find none to run.
 */
export function toStopReason(
  finishReason: unknown,
  facts: { toolUse: boolean; refusal: boolean; stopSequence: string | undefined },
): StopReason {
  if (finishReason === 'length') return 'max_tokens';
  if (finishReason === 'content_filter') return 'refusal';
  if (facts.stopSequence !== undefined) return 'stop_sequence';
  // Some providers end a turn with tool calls in `stop`; the caller's tool loop must still run.
  if (facts.toolUse) return 'tool_use';
  return facts.refusal ? 'refusal' : 'end_turn';
}

/**
 * Translates a chat completion into an Anthropic Messages answer: Claude's signed `thinking_blocks` as they
 * came (else the reasoning text as an unsigned `thinking` block), then the text, then each tool call as a
 * `tool_use` block with its arguments parsed. Usage carries `cost`.
 * Response reference: https://docs.anthropic.com/en/api/messages (response)
 */
export function chatToMessages(
  chat: JsonObject,
  meta: MessageMeta & { usage: UsageMeta },
): { body: JsonObject; warnings: string[] } {
  const warnings: string[] = [];
  const choice = arrayMember(chat, 'choices')?.[0];
  const message = recordMember(choice, 'message');
  const content: JsonObject[] = [];

  for (const one of thinkingBlocks(message)) content.push(one);
  const text = contentText(message?.content);
  if (text !== '') content.push(textBlock(text));
  const refusal = stringMember(message, 'refusal');
  if (refusal) content.push(textBlock(refusal));
  const toolCalls = arrayMember(message, 'tool_calls') ?? [];
  for (const call of toolCalls) content.push(toolUseBlock(call, warnings));

  const stopSequence = matchedStopSequence(choice, meta.stopSequences);
  const finishReason = isRecord(choice) ? choice.finish_reason : undefined;
  const facts = {
    toolUse: toolCalls.length > 0,
    refusal: refusal !== undefined && refusal !== '',
    stopSequence,
  };
  const stopReason = toStopReason(finishReason, facts);
  return {
    body: {
      id: meta.id,
      type: 'message',
      role: 'assistant',
      model: meta.model,
      content,
      stop_reason: stopReason,
      stop_sequence: stopSequence ?? null,
      stop_details: stopDetails(stopReason),
      container: null,
      usage: messagesUsageBody(meta.usage),
    },
    warnings,
  };
}

/**
 * The answer's thinking: the signed blocks an Anthropic upstream gave (`thinking_blocks`), which the client
 * must be able to send back; else the reasoning text of another provider, in a block with no signature.
 */
function thinkingBlocks(message: JsonObject | undefined): JsonObject[] {
  const signed = replayableThinkingBlocks(message?.thinking_blocks);
  if (signed.length > 0) return signed;
  const reasoning = reasoningText(message);
  return reasoning ? [{ type: 'thinking', thinking: reasoning, signature: '' }] : [];
}

/** A chat message's content: a string, or (some providers) an array of text parts. */
function toolUseBlock(call: unknown, warnings: string[]): JsonObject {
  const fn = recordMember(call, 'function');
  const name = stringMember(fn, 'name') ?? '';
  const input = toolInput(stringMember(fn, 'arguments') ?? '', name, warnings);
  return toolUseBlockOf(stringMember(call, 'id') ?? newToolUseId(), name, input, thoughtSignatureOf(call));
}

/** Tool-call arguments as the object `input`; empty arguments are `{}`. */
export function toolInput(args: string, name: string, warnings: string[]): JsonObject {
  if (args.trim() === '') return {};
  const parsed = tryParseNestedJson(args);
  if (isRecord(parsed)) return parsed;
  warnings.push(`the arguments of tool call ${name} were not a JSON object; sent as {}`);
  return {};
}
