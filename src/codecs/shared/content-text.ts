import { stringMember } from '../../json/json.js';

/**
 * The text of chat content, in a message or a stream delta: a string, or the `text` of its parts, which some
 * providers send instead (Mistral's reasoning models stream `[{"type":"text","text":…}]`). Parts without text
 * (images, Mistral's `thinking` parts) add nothing.
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const part of content) text += stringMember(part, 'text') ?? '';
  return text;
}
