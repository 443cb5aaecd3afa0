import type { z } from 'zod';
import { badRequest } from '../../errors/gateway-error.js';
import { isRecord, type JsonObject } from '../../json/json.js';

/**
 * Validates a request body against an endpoint's schema and returns the ORIGINAL object (so that every
 * property the gateway does not know is passed through untouched), typed by the schema.
 */
export function parseBody<Schema extends z.ZodType>(
  body: unknown,
  schema: Schema,
): JsonObject & z.infer<Schema> {
  if (!isRecord(body)) throw badRequest('The request body must be a JSON object.');
  const result = schema.safeParse(body);
  if (!result.success) {
    const issue = result.error.issues[0];
    const param = (issue?.path ?? []).map(String).join('.') || null;
    throw badRequest(`${param ?? 'body'}: ${issue?.message ?? 'invalid'}`, param);
  }
  return body as JsonObject & z.infer<Schema>;
}

/**
 * The request without the gateway's own members (`gateway`, and the `models` fallbacks and `provider` routing
 * object clients send as OpenRouter takes them) and with the upstream's model name: what goes to the provider.
 */
export function upstreamBody(body: JsonObject, upstreamModel: string): JsonObject {
  const { gateway: _gateway, models: _models, provider: _provider, ...rest } = body;
  rest.model = upstreamModel;
  return rest;
}
