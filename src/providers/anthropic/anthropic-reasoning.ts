import { DEFAULT_OUTPUT_BOUND } from '../../accounting/worst-case.js';
import { clientText } from '../../json/client-text.js';
import type { JsonObject } from '../../json/json.js';
import type { Warnings } from './anthropic-warnings.js';
import type { ClaudeRules } from './claude-rules.js';

// `reasoning_effort` on the Messages API: a thinking budget, or adaptive thinking with an effort, by model.

/** Anthropic requires `max_tokens`; used when neither the request nor the catalog gives one. */
export const DEFAULT_MAX_TOKENS = 4096;

/**
 * `reasoning_effort` as an extended-thinking budget (`thinking.budget_tokens`). The API's floor is 1024 and
 * the budget must stay below `max_tokens`; when it does not fit, it is halved to fit, with a warning.
 */
export const THINKING_BUDGETS: ReadonlyMap<string, number> = new Map([
  ['minimal', 1024],
  ['low', 2048],
  ['medium', 8192],
  ['high', 24576],
  ['xhigh', 32768],
]);
const MIN_THINKING_BUDGET = 1024;

/** The provider's name of the model, for messages (bounded: it is the caller's text when no route renamed it). */
export function modelName(chat: JsonObject): string {
  return clientText(String(chat.model));
}

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** `reasoning_effort` as `thinking` or an effort, and the `max_tokens` to send (which must exceed a budget). */
export function reasoning(
  chat: JsonObject,
  nativeThinking: unknown,
  maxOutputTokens: number | undefined,
  rules: ClaudeRules,
  warnings: Warnings,
): { thinking?: JsonObject; effort?: string; maxTokens: number } {
  const requested = positiveInteger(chat.max_completion_tokens) ?? positiveInteger(chat.max_tokens);
  const effort = chat.reasoning_effort;
  const fallback = requested ?? maxOutputTokens ?? DEFAULT_MAX_TOKENS;
  if (effort === undefined || effort === null) return { maxTokens: fallback };
  if (nativeThinking !== undefined) {
    if (effort !== 'none')
      warnings.add('reasoning_effort was ignored because the request sets Anthropic thinking');
    return { maxTokens: fallback };
  }
  if (effort === 'none') return { ...reasoningOff(chat, rules, warnings), maxTokens: fallback };
  if (rules.reasoning === 'effort') return { ...adaptive(effort, rules, warnings), maxTokens: fallback };
  const budget = typeof effort === 'string' ? THINKING_BUDGETS.get(effort) : undefined;
  if (budget === undefined) {
    warnings.add(unsupportedEffort(effort));
    return { maxTokens: fallback };
  }
  // Never past what the request was reserved for when neither it nor the catalog sets a limit (worst-case.ts).
  const maxTokens =
    requested ?? maxOutputTokens ?? Math.min(budget + DEFAULT_MAX_TOKENS, DEFAULT_OUTPUT_BOUND);
  if (budget < maxTokens) return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens };
  const reduced = Math.max(MIN_THINKING_BUDGET, Math.floor(maxTokens / 2));
  if (reduced >= maxTokens) {
    warnings.add(
      `reasoning needs max_tokens above ${MIN_THINKING_BUDGET} on Anthropic; reasoning was not enabled`,
    );
    return { maxTokens };
  }
  warnings.add(`reasoning budget reduced from ${budget} to ${reduced} tokens to fit max_tokens ${maxTokens}`);
  return { thinking: { type: 'enabled', budget_tokens: reduced }, maxTokens };
}

function unsupportedEffort(effort: unknown): string {
  return `reasoning_effort ${clientText(String(JSON.stringify(effort)))} is not supported on Anthropic; not sent`;
}

/**
 * `reasoning_effort` on a model that takes adaptive thinking with an effort: `minimal` is `low`; `xhigh` is
 * `high` where the model has no `xhigh`. Where thinking does not run by default it is turned on (`adaptive`).
 * Reference: https://platform.claude.com/docs/en/build-with-claude/adaptive-thinking
 */
function adaptive(
  effort: unknown,
  rules: ClaudeRules,
  warnings: Warnings,
): { thinking?: JsonObject; effort?: string } {
  let level = typeof effort === 'string' ? ADAPTIVE_EFFORTS.get(effort) : undefined;
  if (level === undefined) {
    warnings.add(unsupportedEffort(effort));
    return {};
  }
  if (level === 'xhigh' && !rules.xhigh) {
    warnings.add('reasoning_effort "xhigh" is not supported by this model; effort "high" was sent');
    level = 'high';
  }
  return rules.thinksByDefault ? { effort: level } : { thinking: { type: 'adaptive' }, effort: level };
}

const ADAPTIVE_EFFORTS: ReadonlyMap<string, string> = new Map([
  ['minimal', 'low'],
  ['low', 'low'],
  ['medium', 'medium'],
  ['high', 'high'],
  ['xhigh', 'xhigh'],
]);

/** `reasoning_effort: none`: nothing to send where thinking is off by default; else the model's way off. */
function reasoningOff(
  chat: JsonObject,
  rules: ClaudeRules,
  warnings: Warnings,
): { thinking?: JsonObject; effort?: string } {
  if (!rules.thinksByDefault) return {};
  if (rules.off !== undefined) return { thinking: { type: rules.off } };
  warnings.add(`reasoning cannot be turned off on ${modelName(chat)}; effort "low" was sent`);
  return { effort: 'low' };
}
