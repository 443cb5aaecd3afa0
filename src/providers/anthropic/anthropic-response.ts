import { UsageFieldReader } from '../../accounting/read-usage-fields.js';
import { emptyUsage, type Usage } from '../../accounting/usage.js';
import { arrayMember, isRecord, type JsonObject, stringMember } from '../../json/json.js';

/**
 * Usage of a Messages answer in the gateway's convention: Anthropic reports cache reads and cache writes
 * apart from `input_tokens`; `inputTokens` counts all three, as OpenAI's `prompt_tokens` does.
 * A count that is missing, negative, a string or a fraction is noted in `problems` (see `checkUsage`).
 * Reference: https://docs.claude.com/en/build-with-claude/prompt-caching (tracking cache performance)
 */
export function usageFromMessages(usage: unknown): Usage {
  const read = new UsageFieldReader(usage, 'usage');
  const cacheRead = read.optional('cache_read_input_tokens');
  const cacheWrite = read.optional('cache_creation_input_tokens');
  return {
    ...emptyUsage(),
    inputTokens: read.required('input_tokens') + cacheRead + cacheWrite,
    outputTokens: read.required('output_tokens'),
    cachedInputTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    webSearchCalls: read.nested('server_tool_use', 'web_search_requests'),
    ...read.found,
  };
}

/** A Usage in the chat completions shape (cached tokens counted inside `prompt_tokens`). */
export function chatUsageBody(usage: Usage): JsonObject {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: {
      cached_tokens: usage.cachedInputTokens,
      cache_write_tokens: usage.cacheWriteTokens,
    },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

const FINISH_REASONS: ReadonlyMap<string, string> = new Map([
  ['end_turn', 'stop'],
  ['stop_sequence', 'stop'],
  ['pause_turn', 'stop'],
  ['max_tokens', 'length'],
  ['model_context_window_exceeded', 'length'],
  ['tool_use', 'tool_calls'],
  ['refusal', 'content_filter'],
]);

/** A Messages `stop_reason` as a chat `finish_reason`. */
export function finishReason(stopReason: unknown): string {
  return (typeof stopReason === 'string' ? FINISH_REASONS.get(stopReason) : undefined) ?? 'stop';
}

/**
 * The stop sequence that ended an answer, for the chat choice's `matched_stop` (SGLang's name for it; chat
 * `finish_reason` is only `stop`): the Messages `stop_sequence` when `stop_reason` is `stop_sequence`.
 * The Messages ingress reads it back, so that a Claude answer keeps its `stop_sequence` through the chat hop.
 */
export function matchedStop(stopReason: unknown, stopSequence: unknown): JsonObject {
  return stopReason === 'stop_sequence' && typeof stopSequence === 'string'
    ? { matched_stop: stopSequence }
    : {};
}

/** Whether a 2xx body is a Messages API `message` object. */
export function isMessage(value: unknown): value is JsonObject {
  return isRecord(value) && value.type === 'message' && Array.isArray(value.content);
}

/**
 * A Messages answer as a chat completion: text blocks joined into `content`, `tool_use` blocks as
 * `tool_calls`, thinking as `reasoning_content` (and the `thinking` blocks with their signatures and the
 * `redacted_thinking` blocks, unchanged, as `thinking_blocks`, which the request side accepts back on an
 * assistant message, as tool use with thinking requires), and the stop sequence that ended it as the
 * choice's `matched_stop`.
 * Reference: https://docs.claude.com/en/api/messages (response)
 */
export function toChatCompletion(
  message: JsonObject,
  nowSeconds: number,
): { body: JsonObject; usage: Usage } {
  const text: string[] = [];
  const reasoning: string[] = [];
  const thinkingBlocks: JsonObject[] = [];
  const toolCalls: JsonObject[] = [];
  for (const block of arrayMember(message, 'content') ?? []) {
    if (!isRecord(block)) continue;
    if (block.type === 'text') text.push(stringMember(block, 'text') ?? '');
    else if (block.type === 'thinking' || block.type === 'redacted_thinking') {
      reasoning.push(stringMember(block, 'thinking') ?? '');
      thinkingBlocks.push(block);
    } else if (block.type === 'tool_use') toolCalls.push(toolCall(block));
  }
  const answer: JsonObject = {
    role: 'assistant',
    content: text.length > 0 ? text.join('') : toolCalls.length > 0 ? null : '',
    refusal: null,
  };
  if (toolCalls.length > 0) answer.tool_calls = toolCalls;
  if (reasoning.some((part) => part !== '')) answer.reasoning_content = reasoning.join('');
  if (thinkingBlocks.length > 0) answer.thinking_blocks = thinkingBlocks;
  const usage = usageFromMessages(message.usage);
  const body: JsonObject = {
    id: message.id,
    object: 'chat.completion',
    created: nowSeconds,
    model: message.model,
    choices: [
      {
        index: 0,
        message: answer,
        logprobs: null,
        finish_reason: finishReason(message.stop_reason),
        ...matchedStop(message.stop_reason, message.stop_sequence),
      },
    ],
    usage: chatUsageBody(usage),
  };
  return { body, usage };
}

function toolCall(block: JsonObject): JsonObject {
  return {
    id: block.id,
    type: 'function',
    function: { name: block.name, arguments: JSON.stringify(isRecord(block.input) ? block.input : {}) },
  };
}
