import type { JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';

/** The planner's strict instruction: a plan, never the answer. */
export const PLANNER_INSTRUCTION = [
  'You are the planning step of a two-model system. Another model will write the answer to the conversation',
  'below. Your only job is to write a short, numbered plan it should follow: the steps, the facts or',
  'constraints to respect, and the pitfalls to avoid. Do NOT write the answer itself, do not write code or',
  'final text for the user, and do not address the user. Reply with the plan only, at most 12 steps.',
].join(' ');

/** The heading under which the plan reaches the executor. */
export const PLAN_HEADING =
  'A planning model prepared this plan for your answer. Follow it, but answer in your own words:';

/**
 * The planner's chat request: the strict instruction as the first system message, then the conversation as
 * the executor would get it (without tools: the planner plans, it does not act).
 */
export function plannerRequest(messages: readonly unknown[]): JsonObject {
  return { messages: [{ role: 'system', content: PLANNER_INSTRUCTION }, ...messages], stream: false };
}

/** The executor's request with the plan in its system prompt (chat) or instructions (Responses). */
export function withPlan(request: JsonObject, kind: 'chat' | 'responses', plan: string): JsonObject {
  const text = `${PLAN_HEADING}\n\n${plan.trim()}`;
  if (kind === 'responses') {
    const instructions =
      typeof request.instructions === 'string' ? `${request.instructions}\n\n${text}` : text;
    return withMembers(request, { instructions });
  }
  const messages = Array.isArray(request.messages) ? request.messages : [];
  const firstNonSystem = messages.findIndex((message) => !isSystem(message));
  const at = firstNonSystem < 0 ? messages.length : firstNonSystem;
  return withMembers(request, {
    messages: [...messages.slice(0, at), { role: 'system', content: text }, ...messages.slice(at)],
  });
}

function isSystem(message: unknown): boolean {
  if (typeof message !== 'object' || message === null || !('role' in message)) return false;
  return message.role === 'system' || message.role === 'developer';
}
