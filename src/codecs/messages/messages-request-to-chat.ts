import { badRequest } from '../../errors/gateway-error.js';
import { clientText } from '../../json/client-text.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { toAssistantMessage, toUserMessages, type Warnings } from './messages-content-to-chat.js';

/** Anthropic-only request members that no chat provider takes: dropped, with the reason the caller sees. */
const ANTHROPIC_ONLY: Record<string, string> = {
  container: 'container (code execution) is not supported on this route; ignored',
  mcp_servers: 'mcp_servers (MCP connector) is not supported on this route; ignored',
  service_tier: 'service_tier is not supported on this route; ignored',
  context_management: 'context_management is not supported on this route; ignored',
};

/**
 * Chat members that change what a call may cost, which the Messages API does not have: a Messages request
 * is reserved against the caps as one answer of at most `max_tokens`, so they are not passed on.
 */
const CHAT_ONLY: Record<string, string> = {
  n: 'n is not a Messages API member; ignored (one answer)',
  max_completion_tokens: 'max_completion_tokens is not a Messages API member; ignored (max_tokens applies)',
};

/**
 * Messages request members this module translates or consumes; every other member (model, stream,
 * temperature, top_p, top_k, the `gateway` object and what the gateway does not know) passes through
 * untouched.
 */
const CONSUMED = new Set([
  'system',
  'messages',
  'tools',
  'tool_choice',
  'stop_sequences',
  'max_tokens',
  'thinking',
  'metadata',
  'output_config',
  ...Object.keys(ANTHROPIC_ONLY),
  ...Object.keys(CHAT_ONLY),
]);

/**
 * A thinking budget as chat's `reasoning_effort`: the effort whose budget is nearest on a log scale, taking
 * the budgets our Anthropic adapter sends back for each effort (low 2,048, medium 8,192, high 24,576), so
 * that a request that goes Messages → chat → Anthropic keeps about its budget. Under 4,096 tokens is low,
 * under 16,384 medium, more high: Claude Code's "think" (4,000) is low, "think hard" (10,000) medium,
 * "ultrathink" (31,999) high.
 */
export function reasoningEffortFor(budgetTokens: number): 'low' | 'medium' | 'high' {
  if (budgetTokens < 4096) return 'low';
  if (budgetTokens < 16384) return 'medium';
  return 'high';
}

/**
 * Translates an Anthropic Messages request into the canonical chat completions request, so that any model
 * with chat completions can serve `/v1/messages`. Expects a request validated by `parseMessagesRequest`;
 * malformed content blocks are 400 BAD_REQUEST naming the block. What chat cannot express is dropped with a
 * warning the caller sees.
 * Request reference: https://docs.anthropic.com/en/api/messages
 */
export function messagesRequestToChat(request: JsonObject): { body: JsonObject; warnings: string[] } {
  const warnings: Warnings = new Set<string>();
  const chat: JsonObject = {};
  for (const [key, value] of Object.entries(request)) if (!CONSUMED.has(key)) chat[key] = value;
  for (const [key, reason] of Object.entries({ ...ANTHROPIC_ONLY, ...CHAT_ONLY })) {
    if (request[key] !== undefined && request[key] !== null) warnings.add(reason);
  }

  chat.messages = toMessages(request, warnings);

  const tools = toTools(arrayMember(request, 'tools') ?? [], warnings);
  if (tools.length > 0) {
    chat.tools = tools;
    Object.assign(chat, toToolChoice(recordMember(request, 'tool_choice')));
  }

  const stop = arrayMember(request, 'stop_sequences');
  if (stop && stop.length > 0) chat.stop = stop;
  if (typeof request.max_tokens === 'number') chat.max_tokens = request.max_tokens;

  const effort = thinkingEffort(request, warnings);
  if (effort) chat.reasoning_effort = effort;

  const responseFormat = toResponseFormat(recordMember(request, 'output_config'), warnings, effort);
  if (responseFormat) chat.response_format = responseFormat;

  const userId = stringMember(recordMember(request, 'metadata'), 'user_id');
  if (userId) chat.user = userId;
  return { body: chat, warnings: [...warnings] };
}

/** Anthropic's effort levels as chat's `reasoning_effort` (`xhigh` is the highest chat has: `max` is it too). */
const EFFORTS: Record<string, string> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'xhigh',
  max: 'xhigh',
};

/**
 * `thinking` as chat's `reasoning_effort`: a budget (`enabled`) as the effort nearest to it; adaptive thinking
 * as `output_config.effort`, or `high` without one (Anthropic's default effort). Without `thinking`, an
 * `output_config.effort` is the effort too: Claude 5 and later think adaptively unless told otherwise, and
 * their guides ask for the effort alone. `disabled` sends none; a type this route does not know is ignored
 * with a warning.
 * Reference: https://docs.claude.com/en/docs/build-with-claude/adaptive-thinking
 */
function thinkingEffort(request: JsonObject, warnings: Warnings): string | undefined {
  const thinking = recordMember(request, 'thinking');
  const type = thinking?.type;
  if (thinking === undefined) {
    const effort = recordMember(request, 'output_config')?.effort;
    return effort === undefined || effort === null ? undefined : mappedEffort(effort);
  }
  if (type === 'disabled') return undefined;
  if (type === 'enabled') {
    const budget = thinking.budget_tokens;
    if (typeof budget !== 'number') {
      throw badRequest(
        'thinking.budget_tokens: is required when thinking is enabled',
        'thinking.budget_tokens',
      );
    }
    return reasoningEffortFor(budget);
  }
  if (type === 'adaptive') {
    const effort = recordMember(request, 'output_config')?.effort;
    return effort === undefined || effort === null ? 'high' : mappedEffort(effort);
  }
  warnings.add(
    `thinking of type ${clientText(String(JSON.stringify(type)))} is not supported on this route; ignored`,
  );
  return undefined;
}

/** An `output_config.effort` as chat's `reasoning_effort`; 400 for a level Anthropic does not have. */
function mappedEffort(effort: unknown): string {
  const mapped = typeof effort === 'string' ? EFFORTS[effort] : undefined;
  if (mapped) return mapped;
  throw badRequest('output_config.effort: must be low, medium, high, xhigh or max', 'output_config.effort');
}

/**
 * `output_config.format` (structured outputs: `{type: 'json_schema', schema}`) as chat's `response_format`
 * json_schema, strict as Anthropic's decoding is; chat wants a name, which Anthropic's format has not. An
 * `effort` became `reasoning_effort` (`thinkingEffort`) unless thinking is disabled; other members have no
 * chat equivalent: dropped with a warning.
 * Reference: https://docs.claude.com/en/docs/build-with-claude/structured-outputs
 */
function toResponseFormat(
  config: JsonObject | undefined,
  warnings: Warnings,
  thinkingEffort: string | undefined,
): JsonObject | undefined {
  for (const [key, value] of Object.entries(config ?? {})) {
    // With adaptive thinking, `effort` became the request's `reasoning_effort` (thinkingEffort).
    if (key === 'effort' && thinkingEffort !== undefined) continue;
    if (key !== 'format' && value !== undefined && value !== null) {
      warnings.add(`output_config.${clientText(key)} is not supported on this route; ignored`);
    }
  }
  const format = recordMember(config, 'format');
  if (!format) return undefined;
  const schema = recordMember(format, 'schema');
  if (format.type === 'json_schema' && schema) {
    return { type: 'json_schema', json_schema: { name: 'output', schema, strict: true } };
  }
  const what =
    format.type === 'json_schema'
      ? 'json_schema without a schema'
      : `of type ${clientText(String(format.type))}`;
  warnings.add(`output_config.format ${what} is not supported on this route; ignored`);
  return undefined;
}

function toMessages(request: JsonObject, warnings: Warnings): JsonObject[] {
  const messages: JsonObject[] = [];
  const system = systemText(request.system);
  if (system !== '') messages.push({ role: 'system', content: system });
  const turns = arrayMember(request, 'messages') ?? [];
  turns.forEach((turn, index) => {
    if (!isRecord(turn)) return;
    const path = `messages.${index}`;
    // As Anthropic answers it: an empty turn would change the conversation (two assistant turns in a row).
    const final = index === turns.length - 1 && turn.role === 'assistant';
    if (Array.isArray(turn.content) && turn.content.length === 0 && !final) {
      throw badRequest(
        `${path}.content: must not be empty (only a final assistant turn may be)`,
        `${path}.content`,
      );
    }
    if (turn.role === 'assistant') messages.push(toAssistantMessage(turn.content, path, warnings));
    else for (const one of toUserMessages(turn.content, path, warnings)) messages.push(one);
  });
  if (!messages.some((message) => message.role !== 'system')) {
    throw badRequest('messages: hold no content that can be sent on this route', 'messages');
  }
  const last = turns.at(-1);
  if (isRecord(last) && last.role === 'assistant') {
    warnings.add(
      'a final assistant message (prefill) is sent as an earlier assistant turn; the answer may not continue it',
    );
  }
  return messages;
}

/** The system prompt as one string: text blocks joined by a blank line. */
function systemText(system: unknown): string {
  if (typeof system === 'string') return system;
  if (!Array.isArray(system)) return '';
  return system
    .map((part) => stringMember(part, 'text') ?? '')
    .filter((text) => text !== '')
    .join('\n\n');
}

/** Client tools as chat function tools; server tools (web search, code execution, ...) are dropped. */
function toTools(tools: unknown[], warnings: Warnings): JsonObject[] {
  const chatTools: JsonObject[] = [];
  tools.forEach((tool, index) => {
    if (!isRecord(tool)) return;
    const type = stringMember(tool, 'type');
    if (type !== undefined && type !== 'custom') {
      warnings.add(`tools of type ${clientText(type)} are not supported on this route; dropped`);
      return;
    }
    const schema = recordMember(tool, 'input_schema');
    if (!schema) throw badRequest(`tools.${index}.input_schema: is required`, `tools.${index}.input_schema`);
    const fn: JsonObject = { name: tool.name };
    if (typeof tool.description === 'string') fn.description = tool.description;
    fn.parameters = schema;
    if (typeof tool.strict === 'boolean') fn.strict = tool.strict;
    chatTools.push({ type: 'function', function: fn });
  });
  return chatTools;
}

/** `tool_choice` (and `disable_parallel_tool_use`) as chat's `tool_choice` and `parallel_tool_calls`. */
function toToolChoice(choice: JsonObject | undefined): JsonObject {
  if (!choice) return {};
  const result: JsonObject = {};
  const type = stringMember(choice, 'type');
  if (type === 'auto') result.tool_choice = 'auto';
  else if (type === 'any') result.tool_choice = 'required';
  else if (type === 'none') result.tool_choice = 'none';
  else if (type === 'tool') {
    result.tool_choice = { type: 'function', function: { name: stringMember(choice, 'name') } };
  }
  if (choice.disable_parallel_tool_use === true && type !== 'none') result.parallel_tool_calls = false;
  return result;
}
