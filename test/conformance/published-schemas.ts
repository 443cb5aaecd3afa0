import { readFileSync } from 'node:fs';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { isRecord, type JsonObject } from '../../src/json/json.js';
import { adaptOpenApiSchema } from './adapt-openapi-schema.js';

/**
 * Validates what the gateway sends against the published API descriptions vendored under `test/schemas/`
 * (see its README): a body against a named component schema, a stream event against the schema of its
 * `type`. Every function returns the list of problems, empty when the value conforms.
 */

export type SchemaSource = 'openai' | 'open-responses' | 'anthropic';

const FILES: Record<SchemaSource, string> = {
  openai: 'openai.openapi.json',
  'open-responses': 'open-responses-2026-04-24.openapi.json',
  anthropic: 'anthropic-messages.openapi.json',
};

/** Events that carry no schema of their own in a description but are part of the protocol. */
const SCHEMALESS_EVENTS: Record<SchemaSource, readonly string[]> = {
  openai: [],
  'open-responses': [],
  anthropic: ['ping'],
};

interface LoadedSource {
  components: JsonObject;
  /** Stream event type → component name. */
  events: Map<string, string>;
}

/** One Ajv instance for all three descriptions, each added whole under its source name as `$id`. */
let ajv: Ajv2020 | undefined;
const loaded = new Map<SchemaSource, LoadedSource>();
const compiled = new Map<string, ValidateFunction>();

function load(source: SchemaSource): LoadedSource {
  const known = loaded.get(source);
  if (known) return known;
  const url = new URL(`../schemas/${FILES[source]}`, import.meta.url);
  const document: unknown = JSON.parse(readFileSync(url, 'utf8'));
  if (!isRecord(document)) throw new Error(`${FILES[source]} is not a JSON object`);
  const adapted = adaptOpenApiSchema(document);
  const components = componentSchemas(adapted);
  ajv ??= new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...adapted, $id: source });
  const entry = { components, events: eventTypes(source, adapted, components) };
  loaded.set(source, entry);
  return entry;
}

function componentSchemas(document: JsonObject): JsonObject {
  const components = document.components;
  const schemas = isRecord(components) ? components.schemas : undefined;
  if (!isRecord(schemas)) throw new Error('the description has no components.schemas');
  return schemas;
}

/** The union of stream events each description declares, as a map from `type` to component name. */
function eventTypes(source: SchemaSource, document: JsonObject, components: JsonObject): Map<string, string> {
  const union =
    source === 'openai'
      ? components.ResponseStreamEvent
      : source === 'anthropic'
        ? components.MessageStreamEvent
        : openResponsesEventUnion(document);
  const members = isRecord(union) ? (union.anyOf ?? union.oneOf) : undefined;
  if (!Array.isArray(members)) throw new Error(`${source}: no stream event union`);
  const events = new Map<string, string>();
  for (const member of members) {
    const name = isRecord(member) && typeof member.$ref === 'string' ? member.$ref.split('/').pop() : '';
    const type = name ? constantType(components[name]) : undefined;
    if (!name || !type) throw new Error(`${source}: stream event ${String(name)} has no constant type`);
    events.set(type, name);
  }
  if (source === 'anthropic') events.set('error', 'ErrorResponse');
  return events;
}

function openResponsesEventUnion(document: JsonObject): unknown {
  const at = (value: unknown, ...keys: string[]): unknown =>
    keys.reduce<unknown>((node, key) => (isRecord(node) ? node[key] : undefined), value);
  return at(
    document,
    'paths',
    '/responses',
    'post',
    'responses',
    '200',
    'content',
    'text/event-stream',
    'schema',
  );
}

function constantType(schema: unknown): string | undefined {
  const type = isRecord(schema) && isRecord(schema.properties) ? schema.properties.type : undefined;
  if (!isRecord(type)) return undefined;
  if (typeof type.const === 'string') return type.const;
  return Array.isArray(type.enum) && typeof type.enum[0] === 'string' ? type.enum[0] : undefined;
}

function validator(source: SchemaSource, component: string): ValidateFunction {
  const key = `${source}#/components/schemas/${component}`;
  const known = compiled.get(key);
  if (known) return known;
  const { components } = load(source);
  if (!(component in components)) throw new Error(`${source} has no component schema ${component}`);
  const validate = ajv?.getSchema(key);
  if (!validate) throw new Error(`cannot compile ${key}`);
  compiled.set(key, validate);
  return validate;
}

const describe = (errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map(
    (error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
  );

/** Problems of `value` against the component schema `component` of `source`; empty when it conforms. */
export function schemaErrors(source: SchemaSource, component: string, value: unknown): string[] {
  const validate = validator(source, component);
  return validate(value) ? [] : describe(validate.errors).map((line) => `${source} ${component}: ${line}`);
}

/** Problems of a stream event against the schema its `type` names in `source`; an unknown type is one. */
export function streamEventErrors(source: SchemaSource, event: unknown): string[] {
  const type = isRecord(event) && typeof event.type === 'string' ? event.type : '';
  if (SCHEMALESS_EVENTS[source].includes(type)) return [];
  const component = load(source).events.get(type);
  if (!component) return [`${source}: no stream event of type "${type}"`];
  return schemaErrors(source, component, event);
}

/** The stream event types `source` declares (for tests that check coverage). */
export function declaredEventTypes(source: SchemaSource): string[] {
  return [...load(source).events.keys()];
}
