import { badRequest } from '../../errors/gateway-error.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { openApiToJsonSchema } from './openapi-schema.js';

/**
 * Gemini `tools` (their `functionDeclarations`) and `toolConfig.functionCallingConfig` as chat `tools` and
 * `tool_choice`. Gemini's own tools (`googleSearch`, `codeExecution`, `urlContext` ...) run at Google only:
 * each becomes a chat tool without `type` (`{"codeExecution": {}}`), which a Gemini provider sends as it is
 * and other providers leave out with a warning. Parameters given as `parametersJsonSchema` are JSON Schema as they are;
 * `parameters` (Gemini's OpenAPI subset) are converted.
 * Reference: https://ai.google.dev/api/caching#Tool and https://ai.google.dev/api/caching#ToolConfig
 */
export function toolsToChat(request: JsonObject): JsonObject {
  const tools: JsonObject[] = [];
  (arrayMember(request, 'tools') ?? []).forEach((tool, index) => {
    if (!isRecord(tool)) return;
    for (const [key, value] of Object.entries(tool)) {
      if (key !== 'functionDeclarations') {
        // A chat tool without `type`: the Gemini adapter sends it as it is, others drop it with a warning.
        if (value !== undefined && value !== null) tools.push({ [key]: value });
        continue;
      }
      (Array.isArray(value) ? value : []).forEach((declaration, position) => {
        tools.push(functionTool(declaration, `tools.${index}.functionDeclarations.${position}`));
      });
    }
  });
  if (tools.length === 0) return {};
  const choice = toolChoice(recordMember(recordMember(request, 'toolConfig'), 'functionCallingConfig'));
  return choice === undefined ? { tools } : { tools, tool_choice: choice };
}

function functionTool(declaration: unknown, at: string): JsonObject {
  const name = stringMember(declaration, 'name');
  if (!name) throw badRequest(`${at}.name: is required`, `${at}.name`);
  const fn: JsonObject = { name };
  const description = stringMember(declaration, 'description');
  if (description !== undefined) fn.description = description;
  const jsonSchema = recordMember(declaration, 'parametersJsonSchema');
  const openApi = recordMember(declaration, 'parameters');
  const parameters = jsonSchema ?? (openApi ? openApiToJsonSchema(openApi) : undefined);
  fn.parameters = isRecord(parameters) ? parameters : { type: 'object', properties: {} };
  return { type: 'function', function: fn };
}

/**
 * AUTO → auto, NONE → none, ANY → required; ANY restricted to one name → that function; to several →
 * `allowed_tools` in required mode. VALIDATED (calls checked against the schema, text allowed) → auto.
 */
function toolChoice(config: JsonObject | undefined): unknown {
  const mode = stringMember(config, 'mode');
  if (mode === undefined || mode === 'MODE_UNSPECIFIED') return undefined;
  if (mode === 'AUTO' || mode === 'VALIDATED') return 'auto';
  if (mode === 'NONE') return 'none';
  const names = (arrayMember(config, 'allowedFunctionNames') ?? []).filter(
    (name): name is string => typeof name === 'string',
  );
  if (names.length === 0) return 'required';
  if (names.length === 1) return { type: 'function', function: { name: names[0] } };
  const allowed = names.map((name) => ({ type: 'function', function: { name } }));
  return { type: 'allowed_tools', allowed_tools: { mode: 'required', tools: allowed } };
}
