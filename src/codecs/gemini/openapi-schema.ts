import { isRecord, type JsonObject } from '../../json/json.js';

/** Gemini-only schema keywords that JSON Schema validators (OpenAI strict mode among them) reject. */
const GEMINI_ONLY = new Set(['propertyOrdering']);

/**
 * A Gemini `Schema` (the OpenAPI 3.0 subset of `parameters` and `responseSchema`, with upper-case `TYPE`
 * names and `nullable`) as JSON Schema, which chat providers take: type names lower-cased, `nullable: true`
 * as a `null` type beside the other, Gemini-only keywords left out, recursively (the names of `properties`
 * are the caller's, never keywords: a property may be called `nullable` or `default`). JSON Schema given as
 * `parametersJsonSchema` / `responseJsonSchema` is taken as it is and never passes through here.
 * Reference: https://ai.google.dev/api/caching#Schema
 */
export function openApiToJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openApiToJsonSchema);
  if (!isRecord(schema)) return schema;
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (GEMINI_ONLY.has(key) || key === 'nullable') continue;
    if (key === 'properties' && isRecord(value)) result.properties = propertySchemas(value);
    else if (key === 'type' && typeof value === 'string') result.type = value.toLowerCase();
    else if (key === 'format' && value === 'enum') continue;
    else if (key === 'enum' || key === 'required' || key === 'example' || key === 'default') {
      result[key] = value;
    } else result[key] = openApiToJsonSchema(value);
  }
  if (schema.nullable === true && typeof result.type === 'string') result.type = [result.type, 'null'];
  return result;
}

/** `properties`: every name kept as it is, every value converted. */
function propertySchemas(properties: JsonObject): JsonObject {
  const result: JsonObject = {};
  for (const [name, schema] of Object.entries(properties)) result[name] = openApiToJsonSchema(schema);
  return result;
}
