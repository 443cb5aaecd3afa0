import { isRecord, type JsonObject } from '../../src/json/json.js';

/**
 * Adapts an OpenAPI 3.1 description for Ajv's JSON Schema 2020-12 validator. The descriptions are 3.1, whose
 * schemas are 2020-12 already, but some keep OpenAPI 3.0's `nullable: true`, which 2020-12 does not know (it
 * would ignore it and reject a `null` the description allows): such a schema becomes
 * `anyOf: [schema, {type: 'null'}]`. One erratum is repaired (below). Nothing else changes; `discriminator`, `example` and `x-*` are left for
 * Ajv to ignore (`strict: false`), the `oneOf` beside each discriminator deciding on its own.
 */
export function adaptOpenApiSchema(document: JsonObject): JsonObject {
  const adapted = adapt(document);
  if (!isRecord(adapted)) throw new Error('unreachable: an object adapts to an object');
  repairJsonSchemaFormat(adapted);
  return adapted;
}

/**
 * Erratum of Open Responses 2026-04-24: `JsonSchemaResponseFormat.schema` is `anyOf: [{type: 'null'}]`, which
 * would reject the very JSON schema a `json_schema` format carries (OpenAI's `Response` requires it to be an
 * object, so no body could satisfy both). Its `schema` becomes an object or null, as its request twin
 * `JsonSchemaResponseFormatParam` says.
 */
function repairJsonSchemaFormat(document: JsonObject): void {
  const components = isRecord(document.components) ? document.components.schemas : undefined;
  const format = isRecord(components) ? components.JsonSchemaResponseFormat : undefined;
  const properties = isRecord(format) ? format.properties : undefined;
  const schema = isRecord(properties) ? properties.schema : undefined;
  const onlyNull = isRecord(schema) && JSON.stringify(schema.anyOf) === '[{"type":"null"}]';
  if (isRecord(properties) && onlyNull) {
    properties.schema = { anyOf: [{ type: 'object' }, { type: 'null' }] };
  }
}

function adapt(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(adapt);
  if (!isRecord(node)) return node;
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key !== 'nullable') copy[key] = adapt(value);
  }
  return node.nullable === true ? { anyOf: [copy, { type: 'null' }] } : copy;
}
