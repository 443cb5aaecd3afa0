import { stringMember } from '../../json/json.js';

/**
 * The reasoning text of a chat message or delta: `reasoning_content` (DeepSeek, vLLM, and what the Gemini and
 * Anthropic adapters make of thought summaries and thinking) or `reasoning` (OpenRouter and newer vLLM).
 */
export function reasoningText(message: unknown): string | undefined {
  return stringMember(message, 'reasoning_content') ?? stringMember(message, 'reasoning');
}
