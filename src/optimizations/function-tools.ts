import type { RequestKind } from '../codecs/request-kind.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../json/json.js';

/**
 * The function tools of a request, in either shape (chat `{type:'function', function:{name, ...}}`,
 * Responses `{type:'function', name, ...}`), read for tool selection: what a tool is about, and which other
 * tools it mentions. Other tools (Responses built-ins, custom tools) are not function tools.
 */

export interface FunctionTool {
  /** Position in `tools`. */
  position: number;
  name: string;
  /** Name (also split into words), description and parameter names and descriptions, for scoring. */
  text: string;
  /** Description and parameter descriptions, where a tool names the tools it depends on. */
  mentions: string;
}

/** The function definition of a tool entry (`function` member in chat, the entry itself in Responses). */
function definition(tool: unknown, kind: RequestKind): JsonObject | undefined {
  if (stringMember(tool, 'type') !== 'function') return undefined;
  const fn = kind === 'chat' ? recordMember(tool, 'function') : isRecord(tool) ? tool : undefined;
  return stringMember(fn, 'name') ? fn : undefined;
}

const MAX_SCHEMA_DEPTH = 4;

/** `name: description` of every property of a JSON schema, nested objects and arrays included. */
function parameterLines(schema: unknown, depth = 0): string[] {
  if (!isRecord(schema) || depth > MAX_SCHEMA_DEPTH) return [];
  const lines: string[] = [];
  for (const [name, property] of Object.entries(recordMember(schema, 'properties') ?? {})) {
    lines.push([name.replaceAll('_', ' '), stringMember(property, 'description')].filter(Boolean).join(': '));
    for (const one of parameterLines(property, depth + 1)) lines.push(one);
  }
  for (const one of parameterLines(recordMember(schema, 'items'), depth + 1)) lines.push(one);
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    for (const branch of arrayMember(schema, key) ?? [])
      for (const one of parameterLines(branch, depth + 1)) lines.push(one);
  }
  return lines;
}

function descriptions(schema: unknown, depth = 0): string[] {
  if (!isRecord(schema) || depth > MAX_SCHEMA_DEPTH) return [];
  const own = stringMember(schema, 'description');
  const nested = [
    ...Object.values(recordMember(schema, 'properties') ?? {}),
    recordMember(schema, 'items'),
    ...['anyOf', 'oneOf', 'allOf'].flatMap((key) => arrayMember(schema, key) ?? []),
  ];
  return [...(own ? [own] : []), ...nested.flatMap((item) => descriptions(item, depth + 1))];
}

/** The function tools of the request, in their order. */
export function readFunctionTools(request: JsonObject, kind: RequestKind): FunctionTool[] {
  return (arrayMember(request, 'tools') ?? []).flatMap((tool, position) => {
    const fn = definition(tool, kind);
    const name = stringMember(fn, 'name');
    if (!fn || !name) return [];
    const description = stringMember(fn, 'description') ?? '';
    const parameters = recordMember(fn, 'parameters');
    const text = [`${name.replace(/[_\-.]+/g, ' ')} (${name})`, description, ...parameterLines(parameters)];
    const mentions = [description, ...descriptions(parameters)].join('\n');
    return [{ position, name, text: text.filter(Boolean).join('\n'), mentions }];
  });
}

/** Names of the function tools a request sends, in their order. */
export function functionToolNames(request: JsonObject, kind: RequestKind): string[] {
  return (arrayMember(request, 'tools') ?? []).flatMap((tool) => {
    const name = stringMember(definition(tool, kind), 'name');
    return name ? [name] : [];
  });
}

/** A function name in a `tool_choice`-like object: chat `{function:{name}}`, Responses `{name}`. */
function choiceName(choice: unknown, kind: RequestKind): string | undefined {
  if (stringMember(choice, 'type') !== 'function') return undefined;
  return kind === 'chat'
    ? stringMember(recordMember(choice, 'function'), 'name')
    : stringMember(choice, 'name');
}

/**
 * Function names `tool_choice` names: a forced function, or the functions of an `allowed_tools` choice
 * (chat `{type:'allowed_tools', allowed_tools:{tools}}`, Responses `{type:'allowed_tools', tools}`), which
 * the caller has already narrowed and which must exist in `tools`.
 */
export function toolChoiceNames(toolChoice: unknown, kind: RequestKind): string[] {
  const forced = choiceName(toolChoice, kind);
  if (forced) return [forced];
  if (stringMember(toolChoice, 'type') !== 'allowed_tools') return [];
  const holder = kind === 'chat' ? recordMember(toolChoice, 'allowed_tools') : toolChoice;
  return (arrayMember(holder, 'tools') ?? []).flatMap((tool) => {
    const name = choiceName(tool, kind);
    return name ? [name] : [];
  });
}
