import { clientText } from '../../json/client-text.js';
import { isRecord } from '../../json/json.js';

/**
 * A chat tool that is a Gemini built-in one (`{"codeExecution": {}}`): no `type`, and neither a chat
 * function's `function` nor an Anthropic tool's `name`.
 */
export const isGeminiBuiltInTool = (tool: unknown): boolean =>
  isRecord(tool) && tool.type === undefined && tool.function === undefined && tool.name === undefined;

/** The warning for a Gemini built-in tool a provider other than Gemini cannot run. */
export function builtInToolWarning(tool: unknown, providerId: string): string {
  const name = isRecord(tool) ? (Object.keys(tool)[0] ?? 'unknown') : 'unknown';
  return `tools.${clientText(name)} (a Gemini built-in tool) is not supported by ${providerId}; dropped`;
}
