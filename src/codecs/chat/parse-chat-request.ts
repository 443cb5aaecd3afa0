import { z } from 'zod';
import { badRequest } from '../../errors/gateway-error.js';
import type { JsonObject } from '../../json/json.js';
import { parseBody } from '../shared/parse-body.js';

/** Completions one chat request may ask for (`n`): OpenAI's own limit. */
export const MAX_COMPLETIONS = 128;

export const messageRoles = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

const message = z.looseObject({
  role: z.enum(messageRoles, { message: `must be one of ${messageRoles.join(', ')}` }),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string() })), z.null()]).optional(),
  name: z.string().optional(),
});

export const chatRequestSchema = z.looseObject({
  model: z.string({ message: 'must be a model slug' }).min(1).optional(),
  messages: z
    .array(message, { message: 'is required and must be an array of messages' })
    .min(1, 'must not be empty'),
  stream: z.boolean().optional(),
  temperature: z.number().optional(),
  max_tokens: z.number().int().positive().optional(),
  max_completion_tokens: z.number().int().positive().optional(),
  // Reserved against the cap as a multiple of the output limit: a string an upstream reads as a number
  // would be billed n times while reserved once.
  n: z.number().int().positive().max(MAX_COMPLETIONS).optional(),
});

export type ChatMessage = z.infer<typeof message>;
export type ChatRequest = JsonObject & z.infer<typeof chatRequestSchema>;

/**
 * Validates a chat completions request (400 BAD_REQUEST naming the field). `model` may be omitted only when
 * the gateway routes by tags; the caller checks that. Only an assistant message (with tool calls) may go
 * without content.
 */
export function parseChatRequest(body: unknown): ChatRequest {
  const request = parseBody(body, chatRequestSchema);
  request.messages.forEach((item, index) => {
    if (item.role !== 'assistant' && (item.content === undefined || item.content === null)) {
      throw badRequest(`messages.${index}.content: is required`, `messages.${index}.content`);
    }
  });
  return request;
}
