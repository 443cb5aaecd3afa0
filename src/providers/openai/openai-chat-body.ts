import type { ResolvedProvider } from '../../catalog/catalog.js';
import { arrayMember, isRecord, type JsonObject } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { builtInToolWarning, isGeminiBuiltInTool } from '../shared/gemini-built-in-tools.js';

/**
 * The chat body as an OpenAI-protocol provider takes it: `max_completion_tokens` for servers that want it,
 * and what only another vendor understands left out with a warning (an Anthropic model's signed thinking of
 * earlier answers; Gemini's thought signatures, unless the provider is Google's own endpoint).
 */
export function openAIChatBody(
  provider: ResolvedProvider,
  readsThoughtSignatures: boolean,
  body: JsonObject,
): { body: JsonObject; warnings: string[] } {
  let result = body;
  const warnings: string[] = [];
  if (
    provider.quirks?.maxCompletionTokens &&
    body.max_tokens !== undefined &&
    body.max_completion_tokens === undefined
  ) {
    const { max_tokens, ...rest } = body;
    result = withMembers(rest, { max_completion_tokens: max_tokens });
  }
  const messages = arrayMember(result, 'messages');
  if (messages?.some((message) => isRecord(message) && message.thinking_blocks !== undefined)) {
    // Signed thinking of an Anthropic model's earlier answers means nothing to this provider.
    result = withMembers(result, { messages: messages.map(withoutThinkingBlocks) });
    warnings.push(`thinking_blocks of earlier answers are not sent to ${provider.id}`);
  }
  const turns = arrayMember(result, 'messages');
  if (!readsThoughtSignatures && turns?.some(hasExtraContent)) {
    // Gemini's thought signatures mean nothing elsewhere, and strict servers refuse unknown fields.
    result = withMembers(result, { messages: turns.map(withoutExtraContent) });
    warnings.push(`Gemini thought signatures (tool_calls[].extra_content) are not sent to ${provider.id}`);
  }
  const tools = arrayMember(result, 'tools');
  const builtIn = tools?.filter(isGeminiBuiltInTool) ?? [];
  if (tools && builtIn.length > 0) {
    // Gemini's built-in tools (`{"codeExecution": {}}`, from the Gemini ingress) run at Google only. With no
    // tool left, neither do the members only tools take: OpenAI refuses `parallel_tool_calls` without tools.
    const kept = tools.filter((tool) => !builtIn.includes(tool));
    const { tools: _tools, tool_choice: _choice, parallel_tool_calls: _parallel, ...rest } = result;
    result = kept.length > 0 ? withMembers(result, { tools: kept }) : rest;
    for (const tool of builtIn) warnings.push(builtInToolWarning(tool, provider.id));
  }
  const said = arrayMember(result, 'messages');
  if (said?.some(hasGeminiParts)) {
    // A Gemini turn's own parts (code execution …): its text, code and results are in `content` already.
    result = withMembers(result, { messages: said.map(withoutGeminiParts) });
  }
  return { body: result, warnings };
}

/** Google's OpenAI-compatible endpoint reads `extra_content` (thought signatures); no other server does. */
/** A tool call with `extra_content` (Gemini's thought signature). */
const carriesExtra = (call: unknown): call is JsonObject => isRecord(call) && 'extra_content' in call;

function hasExtraContent(message: unknown): boolean {
  return arrayMember(message, 'tool_calls')?.some(carriesExtra) === true;
}

function withoutExtraContent(message: unknown): unknown {
  if (!isRecord(message) || !hasExtraContent(message)) return message;
  const toolCalls = (arrayMember(message, 'tool_calls') ?? []).map((call) => {
    if (!carriesExtra(call)) return call;
    const { extra_content: _extra, ...rest } = call;
    return rest;
  });
  return { ...message, tool_calls: toolCalls };
}

/** A message with a Gemini turn's own parts (`extra_content` of the message, see gemini-contents-to-chat.ts). */
const hasGeminiParts = (message: unknown): boolean => isRecord(message) && 'extra_content' in message;

function withoutGeminiParts(message: unknown): unknown {
  if (!isRecord(message) || !hasGeminiParts(message)) return message;
  const { extra_content: _extra, ...rest } = message;
  return rest;
}

export function isGoogleEndpoint(baseUrl: string): boolean {
  try {
    return new URL(baseUrl).hostname.endsWith('generativelanguage.googleapis.com');
  } catch {
    return false;
  }
}

function withoutThinkingBlocks(message: unknown): unknown {
  if (!isRecord(message) || message.thinking_blocks === undefined) return message;
  const { thinking_blocks: _blocks, ...rest } = message;
  return rest;
}
