import type { Warnings } from '../../codecs/shared/translation-warnings.js';
import { badRequest } from '../../errors/gateway-error.js';
import { clientText } from '../../json/client-text.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';

export interface GeminiTools {
  tools?: JsonObject[];
  toolConfig?: JsonObject;
}

/**
 * Chat `tools` and `tool_choice` as Gemini `tools` and `toolConfig.functionCallingConfig`.
 * Function parameters go to `parametersJsonSchema`, which takes JSON Schema as it is (additionalProperties,
 * anyOf, $ref ...), so schemas are not rewritten into Gemini's OpenAPI subset. An entry without `type` is
 * taken to be a Gemini-native tool (`googleSearch`, `codeExecution` ...) and passed through untouched.
 * Reference: https://ai.google.dev/api/caching#Tool and https://ai.google.dev/gemini-api/docs/function-calling
 */
export function toGeminiTools(body: JsonObject, warnings: Warnings): GeminiTools {
  const declarations: JsonObject[] = [];
  const native: JsonObject[] = [];
  (arrayMember(body, 'tools') ?? []).forEach((tool, index) => {
    const type = stringMember(tool, 'type');
    if (type === 'function') declarations.push(functionDeclaration(tool, index, warnings));
    else if (type === undefined && isRecord(tool)) native.push(tool);
    else warnings.add(`tools of type ${clientText(type ?? 'unknown')} are not supported by Gemini; dropped`);
  });
  if (declarations.length === 0 && native.length === 0) return {};
  const choice = toolChoice(body.tool_choice, declarations, warnings);
  const allowed = choice?.restrictTo;
  const kept = allowed ? declarations.filter((d) => allowed.includes(String(d.name))) : declarations;
  const tools = [...(kept.length > 0 ? [{ functionDeclarations: kept }] : []), ...native];
  return choice ? { tools, toolConfig: { functionCallingConfig: choice.config } } : { tools };
}

function functionDeclaration(tool: unknown, index: number, warnings: Warnings): JsonObject {
  const fn = recordMember(tool, 'function');
  const name = stringMember(fn, 'name');
  if (!name) throw badRequest(`tools.${index}.function.name: is required`, `tools.${index}.function.name`);
  const declaration: JsonObject = { name };
  const description = stringMember(fn, 'description');
  if (description !== undefined) declaration.description = description;
  const parameters = recordMember(fn, 'parameters');
  if (parameters) {
    // `$schema` names the draft only; Gemini's schema parser does not know the keyword.
    const { $schema: _draft, ...schema } = parameters;
    declaration.parametersJsonSchema = schema;
  }
  if (fn?.strict === true) {
    warnings.add('tools[].function.strict is not supported by Gemini; arguments are not guaranteed to match');
  }
  return declaration;
}

interface ToolChoice {
  config: JsonObject;
  /** For `allowed_tools` in auto mode: the declarations to send (Gemini restricts names only in ANY mode). */
  restrictTo?: string[];
}

/** auto → AUTO, none → NONE, required → ANY, a named function → ANY restricted to that name. */
function toolChoice(choice: unknown, declarations: JsonObject[], warnings: Warnings): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'auto') return { config: { mode: 'AUTO' } };
  if (choice === 'none') return { config: { mode: 'NONE' } };
  if (choice === 'required') return { config: { mode: 'ANY' } };
  const type = stringMember(choice, 'type');
  if (type === 'function') {
    const name = stringMember(recordMember(choice, 'function'), 'name');
    if (!name) throw badRequest('tool_choice.function.name: is required', 'tool_choice.function.name');
    return { config: { mode: 'ANY', allowedFunctionNames: [name] } };
  }
  if (type === 'allowed_tools') {
    const allowed = recordMember(choice, 'allowed_tools');
    const names = (arrayMember(allowed, 'tools') ?? [])
      .map((tool) => stringMember(recordMember(tool, 'function'), 'name'))
      .filter((name): name is string => name !== undefined);
    if (stringMember(allowed, 'mode') === 'required') {
      return { config: { mode: 'ANY', allowedFunctionNames: names } };
    }
    const known = new Set(declarations.map((d) => d.name));
    return { config: { mode: 'AUTO' }, restrictTo: names.filter((name) => known.has(name)) };
  }
  warnings.add(`tool_choice of type ${clientText(type ?? 'unknown')} is not supported by Gemini; ignored`);
  return undefined;
}
