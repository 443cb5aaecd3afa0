import { z } from 'zod';
import { badRequest } from '../../errors/gateway-error.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { parseBody } from '../shared/parse-body.js';
import { newId } from './chat-to-responses-result.js';
import { compactionItem, isCompaction } from './compaction-item.js';
import { responsesRequestToChat } from './responses-request-to-chat.js';

/**
 * POST /v1/responses/compact (Open Responses 2026-04-24, `CompactResponseMethodPublicBody`): the request,
 * and the gateway's own compaction for providers without a native one: the model summarises the
 * conversation through one chat call, and the answer keeps the user messages plus one `compaction` item.
 */
export const compactRequestSchema = z.looseObject({
  model: z.string({ message: 'is required: a model slug' }).min(1, 'is required: a model slug'),
  input: z.union([z.string(), z.array(z.looseObject({})), z.null()]).optional(),
  instructions: z.union([z.string(), z.null()]).optional(),
  previous_response_id: z.union([z.string(), z.null()]).optional(),
});

export type CompactRequest = JsonObject & z.infer<typeof compactRequestSchema>;

/**
 * Output limits a compaction request has none of (its output is bounded by the model's own limit, which is
 * what is reserved against the caps): refused, never read as a bound the summary call would not keep.
 */
const NOT_COMPACTION_MEMBERS = ['max_output_tokens', 'max_tokens', 'max_completion_tokens', 'n'];

/** Validates a compaction request (400 BAD_REQUEST naming the field; `model` is required). */
export function parseCompactRequest(body: unknown): CompactRequest {
  const request = parseBody(body, compactRequestSchema);
  for (const member of NOT_COMPACTION_MEMBERS) {
    if (request[member] !== undefined) {
      throw badRequest(`${member}: is not a member of a compaction request`, member);
    }
  }
  return request;
}

export const SUMMARY_PROMPT =
  'You compact conversations. Summarise the conversation you are given so that it can be continued from ' +
  'the summary alone: keep the goals, decisions, facts, names, numbers, open questions and the state of ' +
  'any work. Answer with the summary only.';

/**
 * Tokens the summary call adds to the conversation's text, at most: the instructions and the transcript's
 * framing, a token per byte (each message's `[role] ` line costs less than its JSON keys in the request).
 */
export const SUMMARY_PROMPT_TOKENS = Buffer.byteLength(SUMMARY_PROMPT) + 64;

/** The chat request that asks the model for the summary of the conversation in a Responses request. */
export function summaryChatRequest(body: JsonObject): { body: JsonObject; warnings: string[] } {
  const translated = responsesRequestToChat({ input: body.input ?? [], instructions: body.instructions });
  const transcript = (arrayMember(translated.body, 'messages') ?? []).map(transcriptLine).join('\n\n');
  return {
    body: {
      model: body.model,
      messages: [
        { role: 'system', content: SUMMARY_PROMPT },
        { role: 'user', content: `The conversation:\n\n${transcript}` },
      ],
    },
    warnings: translated.warnings,
  };
}

/** One chat message of the conversation as a line of the transcript the model summarises. */
function transcriptLine(message: unknown): string {
  const role = stringMember(message, 'role') ?? 'user';
  const lines = [`[${role}] ${contentText(isRecord(message) ? message.content : undefined)}`.trimEnd()];
  for (const call of arrayMember(message, 'tool_calls') ?? []) {
    const fn = recordMember(call, 'function');
    lines.push(
      `[${role} calls ${stringMember(fn, 'name') ?? 'a tool'}] ${stringMember(fn, 'arguments') ?? ''}`,
    );
  }
  return lines.join('\n');
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const part of Array.isArray(content) ? content : []) {
    const type = stringMember(part, 'type');
    if (type === 'text') texts.push(stringMember(part, 'text') ?? '');
    else if (type === 'refusal') texts.push(stringMember(part, 'refusal') ?? '');
    else if (type !== undefined) texts.push(`(${type === 'image_url' ? 'an image' : 'a file'})`);
  }
  return texts.join('\n');
}

/** The text of a chat completion's first choice: the summary. */
export function chatAnswerText(chat: JsonObject): string {
  const choice = arrayMember(chat, 'choices')?.[0];
  const message = recordMember(choice, 'message');
  return contentText(message?.content).trim();
}

/** The compacted output: the conversation's user messages as they were sent, then the compaction item. */
export function gatewayCompactOutput(body: JsonObject, summary: string): unknown[] {
  return [...keptUserMessages(body.input), compactionItem(summary)];
}

function keptUserMessages(input: unknown): JsonObject[] {
  if (typeof input === 'string') return [userMessage(newId('msg'), input)];
  const kept: JsonObject[] = [];
  for (const item of Array.isArray(input) ? input : []) {
    if (!isRecord(item) || isCompaction(item) || item.role !== 'user') continue;
    if (item.type !== undefined && item.type !== 'message') continue;
    kept.push(userMessage(stringMember(item, 'id') ?? newId('msg'), item.content));
  }
  return kept;
}

function userMessage(id: string, content: unknown): JsonObject {
  const parts = typeof content === 'string' ? [{ type: 'input_text', text: content }] : content;
  return {
    id,
    type: 'message',
    status: 'completed',
    role: 'user',
    content: Array.isArray(parts) ? parts : [],
  };
}
