import { badRequest } from '../../errors/gateway-error.js';
import { arrayMember, type JsonObject, recordMember } from '../../json/json.js';
import { generationConfigToChat } from './gemini-config-to-chat.js';
import { contentsToMessages, systemText, type Warnings } from './gemini-contents-to-chat.js';
import { toolsToChat } from './gemini-tools-to-chat.js';

/** Gemini request members this module translates or consumes; every other member passes through untouched. */
const CONSUMED = new Set([
  'model',
  'contents',
  'systemInstruction',
  'tools',
  'toolConfig',
  'generationConfig',
  'safetySettings',
  'cachedContent',
  'labels',
]);

/** Gemini members no chat provider takes: dropped, with the reason the caller sees. */
const GEMINI_ONLY: Record<string, string> = {
  safetySettings: 'safetySettings are not supported on this route; ignored (the provider applies its own)',
  cachedContent: 'cachedContent (Gemini context caching) is not supported on this route; ignored',
  labels: 'labels are not supported on this route; ignored',
};

export interface GeminiTranslation {
  /** The canonical chat completions request. */
  body: JsonObject;
  warnings: string[];
  /** Whether the answer carries thought summaries (`thinkingConfig.includeThoughts`). */
  includeThoughts: boolean;
}

/**
 * Translates a Gemini `GenerateContentRequest` (validated by `parseGenerateContentRequest`) into the
 * canonical chat completions request for the model slug of the path, so that any model with chat
 * completions serves the Gemini ingress. What chat cannot express is dropped with a warning the caller sees.
 * Reference: https://ai.google.dev/api/generate-content#request-body
 */
export function geminiRequestToChat(request: JsonObject, model: string): GeminiTranslation {
  const warnings: Warnings = new Set<string>();
  const chat: JsonObject = { model };
  for (const [key, value] of Object.entries(request)) if (!CONSUMED.has(key)) chat[key] = value;
  for (const [key, reason] of Object.entries(GEMINI_ONLY)) {
    if (request[key] !== undefined && request[key] !== null) warnings.add(reason);
  }
  const messages: JsonObject[] = [];
  const system = systemText(request.systemInstruction, warnings);
  if (system !== '') messages.push({ role: 'system', content: system });
  const turns = contentsToMessages(arrayMember(request, 'contents') ?? [], warnings);
  if (turns.length === 0) throw badRequest('contents: hold no part that can be sent', 'contents');
  for (const one of turns) messages.push(one);
  chat.messages = messages;
  Object.assign(chat, toolsToChat(request));
  const config = recordMember(request, 'generationConfig');
  Object.assign(chat, generationConfigToChat(config, warnings));
  const includeThoughts = recordMember(config, 'thinkingConfig')?.includeThoughts === true;
  return { body: chat, warnings: [...warnings], includeThoughts };
}
