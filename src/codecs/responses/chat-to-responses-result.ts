import { randomUUID } from 'node:crypto';
import type { Usage } from '../../accounting/usage.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { replayableThinkingBlocks } from '../messages/thinking-blocks.js';
import { contentText } from '../shared/content-text.js';
import { reasoningText } from '../shared/reasoning-text.js';
import { isBlankArguments, NO_ARGUMENTS } from '../shared/tool-arguments.js';
import { clientCallId } from './call-id.js';
import { reasoningItem, summaryRequested } from './reasoning-item.js';
import { normalizeResponse } from './response-defaults.js';

/** A fresh item or response id with the vendor's prefix (`resp`, `msg`, `fc`, `rs`). */
export const newId = (prefix: string): string => `${prefix}_${randomUUID().replaceAll('-', '')}`;

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

/** Why a chat answer that stopped early is incomplete in Responses terms, or undefined when it is complete. */
export function incompleteReason(finishReason: unknown): 'max_output_tokens' | 'content_filter' | undefined {
  if (finishReason === 'length') return 'max_output_tokens';
  if (finishReason === 'content_filter') return 'content_filter';
  return undefined;
}

/** Usage in the Responses shape (without cost; the codec adds it). */
export function responsesUsage(usage: Usage): JsonObject {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: {
      cached_tokens: usage.cachedInputTokens,
      cache_write_tokens: usage.cacheWriteTokens,
    },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

export const outputTextPart = (text: string): JsonObject => ({
  type: 'output_text',
  text,
  annotations: [],
  logprobs: [],
});

export const refusalPart = (refusal: string): JsonObject => ({ type: 'refusal', refusal });

export const messageItem = (id: string, status: string, content: JsonObject[]): JsonObject => ({
  id,
  type: 'message',
  status,
  content,
  role: 'assistant',
});

export interface FunctionCallFields {
  id: string;
  callId: string;
  name: string;
  arguments: string;
  status: string;
}

export const functionCallItem = (call: FunctionCallFields): JsonObject => ({
  id: call.id,
  type: 'function_call',
  status: call.status,
  arguments: call.arguments,
  call_id: call.callId,
  name: call.name,
});

export interface ResponseFields {
  id: string;
  createdAt: number;
  model: unknown;
  status: 'in_progress' | 'completed' | 'incomplete';
  incompleteReason?: string | undefined;
  output: JsonObject[];
  usage: Usage | undefined;
}

/** The request settings a Response echoes when the answer was translated from chat (what chat was sent). */
const ECHOED_SETTINGS = [
  'instructions',
  'max_output_tokens',
  'parallel_tool_calls',
  'reasoning',
  'temperature',
  'text',
  'tool_choice',
  'top_p',
  'top_logprobs',
  'max_tool_calls',
  'metadata',
  'safety_identifier',
  'prompt_cache_key',
] as const;

/**
 * A whole, schema-exact Response object, echoing the request's settings the way OpenAI does. Only function
 * tools are echoed: hosted tools were dropped on the way to chat (with a warning), so they were not available.
 */
export function responseObject(request: JsonObject, fields: ResponseFields): JsonObject {
  const echoed: JsonObject = {};
  for (const key of ECHOED_SETTINGS) if (request[key] !== undefined) echoed[key] = request[key];
  const tools = (arrayMember(request, 'tools') ?? []).filter(
    (tool): tool is JsonObject => isRecord(tool) && tool.type === 'function',
  );
  return normalizeResponse(
    withMembers(echoed, {
      id: fields.id,
      object: 'response',
      created_at: fields.createdAt,
      status: fields.status,
      completed_at: fields.status === 'completed' ? nowSeconds() : null,
      error: null,
      incomplete_details: fields.incompleteReason ? { reason: fields.incompleteReason } : null,
      model: fields.model,
      output: fields.output,
      previous_response_id: null,
      tools,
      usage: fields.usage ? responsesUsage(fields.usage) : null,
    }),
  );
}

/** The choice of index 0 (or without an index, as some providers send it). */
export function isFirstChoice(choice: unknown): boolean {
  return isRecord(choice) && (choice.index === undefined || choice.index === 0);
}

/**
 * Turns a chat completion into a complete Response object, for Responses requests served by a provider
 * that has only chat completions: a `reasoning` item first, then the message, then the function calls. The
 * reasoning item holds the reasoning text (`reasoning_content`: Gemini's thought summaries, DeepSeek's and
 * vLLM's reasoning, Claude's thinking) as its summary when the request asked for one, and Claude's signed
 * thinking (`thinking_blocks`) whether asked or not; it is left out when it would hold neither. The caller
 * sets the final id, model slug and usage with cost.
 * Response reference: https://platform.openai.com/docs/api-reference/responses/object
 */
export function chatResultToResponse(chat: JsonObject, request: JsonObject, usage: Usage): JsonObject {
  // A Response is one answer: choice 0's (an upstream that answered n > 1 may list another first).
  const choices = arrayMember(chat, 'choices');
  const choice = choices?.find(isFirstChoice) ?? choices?.[0];
  const message = recordMember(choice, 'message');
  const reason = incompleteReason(isRecord(choice) ? choice.finish_reason : undefined);

  const output: JsonObject[] = [];
  const thinkingBlocks = replayableThinkingBlocks(message?.thinking_blocks);
  const summary = summaryRequested(request) ? (reasoningText(message) ?? '') : '';
  if (thinkingBlocks.length > 0 || summary !== '') {
    output.push(reasoningItem(newId('rs'), thinkingBlocks, summary));
  }
  const content: JsonObject[] = [];
  const text = contentText(message?.content);
  if (text !== '') content.push(outputTextPart(text));
  const refusal = stringMember(message, 'refusal');
  if (refusal) content.push(refusalPart(refusal));
  if (content.length > 0) output.push(messageItem(newId('msg'), 'completed', content));

  for (const toolCall of arrayMember(message, 'tool_calls') ?? []) {
    const fn = recordMember(toolCall, 'function');
    const args = stringMember(fn, 'arguments') ?? '';
    const fields = {
      id: newId('fc'),
      callId: clientCallId(stringMember(toolCall, 'id') ?? newId('call'), toolCall),
      name: stringMember(fn, 'name') ?? '',
      arguments: isBlankArguments(args) ? NO_ARGUMENTS : args,
      status: 'completed',
    };
    output.push(functionCallItem(fields));
  }
  // The item the model was writing when it stopped is the one cut short.
  const last = output.at(-1);
  if (reason && last) last.status = 'incomplete';

  return responseObject(request, {
    id: newId('resp'),
    createdAt: typeof chat.created === 'number' ? chat.created : nowSeconds(),
    model: stringMember(chat, 'model') ?? request.model ?? null,
    status: reason ? 'incomplete' : 'completed',
    incompleteReason: reason,
    output,
    usage,
  });
}
