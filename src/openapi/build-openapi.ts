import { z } from 'zod';
import type { AppRoute } from '../app/route-table.js';

/** The contract's error body, as every error answer carries it. */
const errorSchema = z.object({
  error: z.object({
    message: z.string(),
    code: z.string().nullable(),
    type: z.string(),
    param: z.string().nullable(),
  }),
});

type JsonSchema = Record<string, unknown>;

/** A zod schema as JSON Schema 2020-12 (OpenAPI 3.1's dialect), the input side: what a client sends. */
function jsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
  return rest;
}

/** `/v1/models/{id+}` → `/v1/models/{id}`: OpenAPI has no greedy parameters. */
export const openApiPath = (pattern: string): string => pattern.replace(/\{(\w+)\+\}/g, '{$1}');

const pathParameters = (pattern: string) =>
  [...pattern.matchAll(/\{(\w+)\+?\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));

function queryParameters(schema: z.ZodType | undefined) {
  if (!schema) return [];
  const object = jsonSchema(schema);
  const properties = (object.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query',
    required: required.has(name),
    schema: property,
  }));
}

function security(route: AppRoute) {
  if (route.handler.auth === 'admin') return [{ adminToken: [] }];
  return route.handler.auth ? [{ apiKey: [] }] : [];
}

function operation(route: AppRoute) {
  const { doc } = route;
  const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  const success: Record<string, unknown> = {
    [doc.produces ?? 'application/json']: { schema: doc.produces ? { type: 'string' } : {} },
  };
  if (doc.alsoProduces) success[doc.alsoProduces] = { schema: { type: 'string' } };
  return {
    operationId: `${route.method.toLowerCase()}${openApiPath(route.pattern).replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: doc.summary,
    ...(doc.description ? { description: doc.description } : {}),
    tags: [doc.tag],
    security: security(route),
    parameters: [...pathParameters(route.pattern), ...queryParameters(doc.query)],
    ...(doc.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(doc.body) } } } }
      : {}),
    responses: {
      [String(doc.status ?? 200)]: { description: 'Success', content: success },
      default: { description: 'An error in the contract’s shape', content: errorContent },
    },
  };
}

/**
 * The OpenAPI 3.1 document of the whole HTTP surface, generated from the route table: every route, its path
 * and query parameters, and its request body as the JSON Schema of the zod schema its handler validates with
 * (no hand-written copy to drift). Routes sharing a path become one path item.
 */
export function buildOpenApi(routes: readonly AppRoute[], version: string) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = openApiPath(route.pattern);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Model gateway',
      version,
      description:
        'One HTTP/JSON service in front of many model providers. Inference routes take an organization API key; ' +
        '/admin/v1 takes the admin token (GATEWAY_ADMIN_TOKEN) and exists only when it is set.',
    },
    paths,
    components: {
      schemas: { Error: jsonSchema(errorSchema) },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An organization API key (sk-gw-…)' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The admin token (GATEWAY_ADMIN_TOKEN)' },
      },
    },
  };
}
