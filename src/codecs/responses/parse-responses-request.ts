import { z } from 'zod';
import { badRequest } from '../../errors/gateway-error.js';
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

/**
 * Chat output controls the Responses API does not have. Passed through, each would change what is billed
 * beyond the reserved worst case (`n` answers, or a limit other than `max_output_tokens`), and several
 * answers cannot be one Response: refused (400 naming the member) whichever provider serves the model, never dropped or forwarded.
 */
const CHAT_ONLY_OUTPUT_CONTROLS: Readonly<Record<string, string>> = {
  n: 'n: is not a Responses API parameter (a Response is one answer); send one request per answer',
  max_tokens: 'max_tokens: is not a Responses API parameter; use max_output_tokens',
  max_completion_tokens: 'max_completion_tokens: is not a Responses API parameter; use max_output_tokens',
};

/**
 * Members that name what a provider keeps under the gateway's own account (a stored prompt, a conversation):
 * passed on, any organization could use what another one stored, and the provider would put text in front of
 * the request that its reservation never counted. Refused (400 naming the member), never forwarded.
 */
const PROVIDER_STATE: Readonly<Record<string, string>> = {
  prompt:
    'prompt: names a prompt stored at a provider, which the gateway does not pass on; send its text as instructions or input',
  conversation:
    'conversation: names a conversation stored at a provider, which the gateway does not pass on; use previous_response_id (server.conversationState) or send the earlier turns as input',
};

/** Validates a Responses request (400 BAD_REQUEST naming the field). */
export function parseResponsesRequest(body: unknown): ResponsesRequest {
  const request = parseBody(body, responsesRequestSchema);
  for (const [key, message] of Object.entries(CHAT_ONLY_OUTPUT_CONTROLS)) {
    if (request[key] !== undefined) throw badRequest(message, key);
  }
  for (const [key, message] of Object.entries(PROVIDER_STATE)) {
    if (request[key] !== undefined && request[key] !== null) throw badRequest(message, key);
  }
  return request;
}
