import { clientText } from '../../json/client-text.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import { builtInToolWarning, isGeminiBuiltInTool } from '../shared/gemini-built-in-tools.js';
import type { Warnings } from './anthropic-warnings.js';

export interface ToolSettings {
  tools?: JsonObject[];
  tool_choice?: JsonObject;
}

/** What the model allows: thinking on, and whether a forced `tool_choice` is accepted at all. */
export interface ToolRules {
  thinking: boolean;
  forcedTools: boolean;
}

/**
 * Chat `tools`, `tool_choice` and `parallel_tool_calls` as Messages API tools and tool choice.
 * Function tools become `{name, description, input_schema, strict}`; a tool that is not an OpenAI tool (an
 * Anthropic server tool such as `web_search_20250305`) passes untouched. With extended thinking on, the API
 * accepts only `auto` and `none`, and models since Fable 5.1, Opus 5.5 and Sonnet 5.5 never accept a forced
 * choice: then `auto` is sent with a warning, and a named tool is the only tool offered.
 * Reference: https://docs.claude.com/en/agents-and-tools/tool-use/implement-tool-use
 */
export function toToolSettings(chat: JsonObject, rules: ToolRules, warnings: Warnings): ToolSettings {
  const allowed = allowedTools(chat.tool_choice);
  let source = arrayMember(chat, 'tools') ?? [];
  if (allowed) {
    const names = new Set((arrayMember(allowed, 'tools') ?? []).map(functionName));
    source = source.filter(
      (tool) => stringMember(tool, 'type') !== 'function' || names.has(functionName(tool)),
    );
  }
  let tools = toTools(source, warnings);
  if (tools.length === 0) return {};
  const choice = allowed ? (allowed.mode === 'required' ? 'required' : 'auto') : chat.tool_choice;
  let toolChoice = toToolChoice(choice, warnings);
  const forced = toolChoice?.type === 'any' || toolChoice?.type === 'tool';
  if (forced && !rules.forcedTools) {
    const name = toolChoice?.type === 'tool' ? stringMember(toolChoice, 'name') : undefined;
    const named = name === undefined ? [] : tools.filter((tool) => tool.name === name);
    if (named.length > 0) tools = named;
    warnings.add(
      named.length === 0
        ? 'a forced tool_choice is not supported by this model; tool_choice "auto" was sent'
        : 'a forced tool_choice is not supported by this model; tool_choice "auto" was sent with only the named tool',
    );
    toolChoice = { type: 'auto' };
  } else if (forced && rules.thinking) {
    warnings.add(
      'a forced tool_choice is not supported with reasoning on Anthropic; tool_choice "auto" was sent',
    );
    toolChoice = { type: 'auto' };
  }
  if (chat.parallel_tool_calls === false && toolChoice?.type !== 'none') {
    toolChoice = withMembers(toolChoice ?? { type: 'auto' }, { disable_parallel_tool_use: true });
  }
  return toolChoice ? { tools, tool_choice: toolChoice } : { tools };
}

function toTools(tools: unknown[], warnings: Warnings): JsonObject[] {
  const result: JsonObject[] = [];
  for (const tool of tools) {
    if (!isRecord(tool)) continue;
    if (tool.type === 'function') {
      result.push(functionTool(tool));
    } else if (tool.type === 'custom') {
      warnings.add('custom (free-form) tools are not supported by the Anthropic Messages API; dropped');
    } else if (isGeminiBuiltInTool(tool)) {
      // Gemini's built-in tools (`{"codeExecution": {}}`, from the Gemini ingress) run at Google only.
      warnings.add(builtInToolWarning(tool, 'the Anthropic Messages API'));
    } else {
      result.push(tool);
    }
  }
  return result;
}

function functionTool(tool: JsonObject): JsonObject {
  const fn = recordMember(tool, 'function') ?? {};
  const translated: JsonObject = {
    name: fn.name,
    input_schema: recordMember(fn, 'parameters') ?? { type: 'object', properties: {} },
  };
  if (typeof fn.description === 'string') translated.description = fn.description;
  // `strict: false` is the API's default: only `true` (strict tool use) is sent.
  if (fn.strict === true) translated.strict = true;
  if (tool.cache_control !== undefined) translated.cache_control = tool.cache_control;
  return translated;
}

function allowedTools(choice: unknown): JsonObject | undefined {
  return stringMember(choice, 'type') === 'allowed_tools' ? recordMember(choice, 'allowed_tools') : undefined;
}

function functionName(tool: unknown): string | undefined {
  return stringMember(recordMember(tool, 'function'), 'name') ?? stringMember(tool, 'name');
}

function toToolChoice(choice: unknown, warnings: Warnings): JsonObject | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { type: 'auto' };
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any' };
  const type = stringMember(choice, 'type');
  if (type === 'function') {
    const name = functionName(choice);
    if (name !== undefined) return { type: 'tool', name };
  }
  // Already in the Messages API's own shape.
  if (isRecord(choice) && (type === 'auto' || type === 'any' || type === 'none' || type === 'tool')) {
    return choice;
  }
  warnings.add(
    `tool_choice ${clientText(String(JSON.stringify(choice)))} is not supported by the Anthropic Messages API; ignored`,
  );
  return undefined;
}
