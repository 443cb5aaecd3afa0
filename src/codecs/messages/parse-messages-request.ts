import { z } from 'zod';
import type { JsonObject } from '../../json/json.js';
import { parseBody } from '../shared/parse-body.js';

/**
 * Validation of Anthropic Messages requests at the edge. Only the members the gateway reads are checked;
 * every other member stays in the object untouched. Content blocks are checked one by one where they are
 * translated (`messages-request-to-chat.ts`), so that an error can name the block.
 * Reference: https://docs.anthropic.com/en/api/messages
 */
const block = z.looseObject({ type: z.string({ message: 'must be a content block type' }) });

const message = z.looseObject({
  role: z.enum(['user', 'assistant'], { message: 'must be user or assistant' }),
  content: z.union([z.string(), z.array(block)], {
    message: 'is required: a string or an array of content blocks',
  }),
});

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });

const toolChoice = z
  .looseObject({
    type: z.enum(['auto', 'any', 'tool', 'none'], { message: 'must be auto, any, tool or none' }),
    name: z.string().min(1).optional(),
    disable_parallel_tool_use: z.boolean().optional(),
  })
  .refine((choice) => choice.type !== 'tool' || choice.name !== undefined, {
    message: 'name is required when type is tool',
  });

export const countTokensSchema = z.looseObject({
  model: z.string({ message: 'is required: a model slug' }).min(1, 'is required: a model slug'),
  messages: z
    .array(message, { message: 'is required: an array of messages' })
    .min(1, 'must hold at least one message'),
  system: z
    .union([z.string(), z.array(textBlock)], { message: 'must be a string or text blocks' })
    .optional(),
  tools: z.array(z.looseObject({ name: z.string({ message: 'is required' }).min(1) })).optional(),
  tool_choice: toolChoice.optional(),
  thinking: z
    .looseObject({
      type: z.string(),
      budget_tokens: z.number().int().positive().optional(),
    })
    .optional(),
});

export const messagesRequestSchema = countTokensSchema.extend({
  max_tokens: z
    .number({ message: 'is required: a positive integer' })
    .int('must be an integer')
    .positive('must be greater than 0'),
  stream: z.boolean().optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().optional(),
  top_p: z.number().optional(),
  top_k: z.number().int().nonnegative().optional(),
  metadata: z.looseObject({ user_id: z.string().nullable().optional() }).optional(),
});

export type MessagesRequest = JsonObject & z.infer<typeof messagesRequestSchema>;
export type CountTokensRequest = JsonObject & z.infer<typeof countTokensSchema>;

/** Validates a Messages request (400 BAD_REQUEST naming the field, e.g. `max_tokens`). */
export function parseMessagesRequest(body: unknown): MessagesRequest {
  return parseBody(body, messagesRequestSchema);
}

/** Validates a count_tokens request: a Messages request without `max_tokens`. */
export function parseCountTokensRequest(body: unknown): CountTokensRequest {
  return parseBody(body, countTokensSchema);
}
