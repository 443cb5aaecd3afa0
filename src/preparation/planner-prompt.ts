import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../json/json.js';
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
 * the executor would get it, its tool calls and results written out as text: the planner gets no tools (it
 * plans, it does not act), and providers refuse tool calls in a request that defines none (Anthropic:
 * "Requests which include tool_use or tool_result blocks must define tools").
 */
export function plannerRequest(messages: readonly unknown[]): JsonObject {
  const conversation = messages.map(withCallsAsText);
  return { messages: [{ role: 'system', content: PLANNER_INSTRUCTION }, ...conversation], stream: false };
}

/** A tool result as a user message, an assistant's calls as its text; other messages as they are. */
function withCallsAsText(message: unknown): unknown {
  if (!isRecord(message)) return message;
  if (message.role === 'tool' || message.role === 'function') {
    const of = stringMember(message, 'name') ?? stringMember(message, 'tool_call_id') ?? '';
    return { role: 'user', content: withText(message.content, `[Result of tool call ${of}]`, 'before') };
  }
  if (message.role !== 'assistant' || (!message.tool_calls && !message.function_call)) return message;
  const { tool_calls: calls, function_call: legacy, ...rest } = message;
  const targets = [
    ...(Array.isArray(calls) ? calls : []).map(
      (call) => recordMember(call, 'function') ?? recordMember(call, 'custom'),
    ),
    isRecord(legacy) ? legacy : undefined,
  ];
  const written = targets.flatMap((target) => {
    const name = stringMember(target, 'name');
    if (name === undefined) return [];
    return [
      `[Tool call ${name}(${stringMember(target, 'arguments') ?? stringMember(target, 'input') ?? ''})]`,
    ];
  });
  return { ...rest, content: withText(message.content, written.join('\n'), 'after') };
}

/** A message content (string, parts or nothing) with a line of text added before or after it. */
function withText(content: unknown, text: string, where: 'before' | 'after'): unknown {
  if (typeof content === 'string' && content !== '')
    return where === 'before' ? `${text}\n${content}` : `${content}\n${text}`;
  const parts = arrayMember({ content }, 'content');
  if (!parts || parts.length === 0) return text;
  const part = { type: 'text', text };
  return where === 'before' ? [part, ...parts] : [...parts, part];
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
