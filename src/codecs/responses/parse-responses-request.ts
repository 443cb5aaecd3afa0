import { z } from 'zod';
import type { JsonObject } from '../../json/json.js';
import { parseBody } from '../shared/parse-body.js';

/** An input item: a message (with `role`) or another typed item (function_call, function_call_output, ...). */
const inputItem = z.union([
  z.looseObject({
    role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string() }))]),
  }),
  z.looseObject({ type: z.string(), role: z.undefined().optional() }),
]);

export const responsesRequestSchema = z.looseObject({
  model: z.string({ message: 'must be a model slug' }).min(1).optional(),
  input: z.union([z.string(), z.array(inputItem).min(1, 'must not be empty')], {
    message: 'is required: a string or an array of input items',
  }),
  stream: z.boolean().optional(),
  max_output_tokens: z.number().int().positive().optional(),
  temperature: z.number().optional(),
});

export type ResponsesRequest = JsonObject & z.infer<typeof responsesRequestSchema>;

/** Validates a Responses request (400 BAD_REQUEST naming the field). */
export function parseResponsesRequest(body: unknown): ResponsesRequest {
  return parseBody(body, responsesRequestSchema);
}
