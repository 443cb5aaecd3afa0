import { badRequest } from '../../errors/gateway-error.js';
import { clientText } from '../../json/client-text.js';
import { isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { signatureContent } from '../shared/thought-signature.js';
import { replayableThinkingBlocks } from './thinking-blocks.js';
import { toUpstreamToolCall, toUpstreamToolCallId } from './tool-use-id.js';

/** Warnings raised while translating, each once, in the order first raised. */
export type Warnings = Set<string>;

/**
 * Content blocks of Messages turns as chat messages and content parts.
 * Block reference: https://docs.anthropic.com/en/api/messages (messages[].content)
 *
 * `cache_control` marks are dropped without a warning: chat providers cache prompts by themselves, and the
 * mark changes the price of a request, never its answer. An assistant turn's signed `thinking` and
 * `redacted_thinking` blocks go on the chat message as `thinking_blocks`, which the Anthropic adapter sends
 * back first in the turn (a tool-use turn with thinking on needs them); thinking blocks without a signature
 * (another provider's reasoning, as this ingress rendered it) are dropped: chat cannot send reasoning back.
 */

/**
 * A user turn as chat messages: its `tool_result` blocks become `tool` messages (first, as chat wants them
 * right after the assistant's tool calls), the other blocks one user message after them.
 */
export function toUserMessages(content: unknown, path: string, warnings: Warnings): JsonObject[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const toolMessages: JsonObject[] = [];
  const parts: JsonObject[] = [];
  blocksOf(content).forEach((block, index) => {
    const at = `${path}.content.${index}`;
    if (block.type === 'tool_result') {
      toolMessages.push(toToolMessage(block, at, parts, warnings));
      return;
    }
    if (block.type === 'tool_use') throw badRequest(`${at}: tool_use blocks belong to assistant turns`, at);
    const part = toUserPart(block, at, warnings);
    if (part) parts.push(part);
  });
  return parts.length > 0 ? [...toolMessages, { role: 'user', content: parts }] : toolMessages;
}

/**
 * An assistant turn as one chat message: its text, its `tool_use` blocks as `tool_calls`, and its signed
 * thinking blocks as `thinking_blocks`, in their order.
 */
export function toAssistantMessage(content: unknown, path: string, warnings: Warnings): JsonObject {
  if (typeof content === 'string') return { role: 'assistant', content };
  let text = '';
  const toolCalls: JsonObject[] = [];
  const thinking: JsonObject[] = [];
  blocksOf(content).forEach((block, index) => {
    const at = `${path}.content.${index}`;
    const type = stringMember(block, 'type');
    if (type === 'text') text += requireString(block, 'text', at);
    else if (type === 'tool_use') toolCalls.push(toToolCall(block, at));
    else if (type === 'tool_result') throw badRequest(`${at}: tool_result blocks belong to user turns`, at);
    else if (type === 'thinking' || type === 'redacted_thinking') thinking.push(block);
    else
      warnings.add(
        `assistant content blocks of type ${clientText(String(type))} are not supported on this route; dropped`,
      );
  });
  const message: JsonObject = {
    role: 'assistant',
    content: text === '' && toolCalls.length > 0 ? null : text,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  const thinkingBlocks = replayableThinkingBlocks(thinking);
  if (thinkingBlocks.length > 0) message.thinking_blocks = thinkingBlocks;
  return message;
}

function toToolCall(block: JsonObject, at: string): JsonObject {
  const input = block.input ?? {};
  if (!isRecord(input)) throw badRequest(`${at}.input: must be an object`, `${at}.input`);
  const { id, thoughtSignature } = toUpstreamToolCall(requireString(block, 'id', at));
  const call: JsonObject = {
    id,
    type: 'function',
    function: { name: requireString(block, 'name', at), arguments: JSON.stringify(input) },
  };
  if (thoughtSignature !== undefined) call.extra_content = signatureContent(thoughtSignature);
  return call;
}

/**
 * A `tool_result` block as a `tool` message. Its text blocks are joined; its images cannot go in a tool
 * message, so they join the user message that follows, labelled with the call they answer. An error result
 * is marked as such in the text, chat having no `is_error`.
 */
function toToolMessage(block: JsonObject, at: string, userParts: JsonObject[], warnings: Warnings) {
  const toolCallId = toUpstreamToolCallId(requireString(block, 'tool_use_id', at));
  const content = block.content;
  const texts: string[] = [];
  if (typeof content === 'string') texts.push(content);
  else {
    blocksOf(content).forEach((inner, index) => {
      const innerAt = `${at}.content.${index}`;
      if (inner.type === 'text') texts.push(requireString(inner, 'text', innerAt));
      else if (inner.type === 'search_result') texts.push(searchResultText(inner, innerAt));
      else if (inner.type === 'image') {
        const image = toImagePart(inner, innerAt, warnings);
        if (image)
          userParts.push({ type: 'text', text: `Image returned by tool call ${toolCallId}:` }, image);
      } else {
        warnings.add(
          `tool_result content of type ${clientText(String(inner.type))} is not supported on this route; dropped`,
        );
      }
    });
  }
  const text = texts.join('\n');
  return {
    role: 'tool',
    tool_call_id: toolCallId,
    content: block.is_error === true ? `Error: ${text}` : text,
  };
}

/** A user content block as a chat content part, or undefined (with a warning) where chat has none. */
function toUserPart(block: JsonObject, at: string, warnings: Warnings): JsonObject | undefined {
  const type = stringMember(block, 'type');
  if (type === 'text') return { type: 'text', text: requireString(block, 'text', at) };
  if (type === 'image') return toImagePart(block, at, warnings);
  if (type === 'document') return toDocumentPart(block, at, warnings);
  if (type === 'search_result') return { type: 'text', text: searchResultText(block, at) };
  warnings.add(`content blocks of type ${clientText(String(type))} are not supported on this route; dropped`);
  return undefined;
}

/** `image` with a base64 source becomes a data URI, with a url source the URL. */
function toImagePart(block: JsonObject, at: string, warnings: Warnings): JsonObject | undefined {
  const source = recordMember(block, 'source');
  const sourceType = stringMember(source, 'type');
  if (!source) throw badRequest(`${at}.source: is required`, `${at}.source`);
  if (sourceType === 'base64') {
    const mediaType = requireString(source, 'media_type', `${at}.source`);
    const data = requireString(source, 'data', `${at}.source`);
    return { type: 'image_url', image_url: { url: `data:${mediaType};base64,${data}` } };
  }
  if (sourceType === 'url') {
    return { type: 'image_url', image_url: { url: requireString(source, 'url', `${at}.source`) } };
  }
  warnings.add(
    `image sources of type ${clientText(String(sourceType))} are not supported on this route; the image is dropped`,
  );
  return undefined;
}

/** A PDF (base64) becomes a chat `file` part, a plain-text document a text part. */
function toDocumentPart(block: JsonObject, at: string, warnings: Warnings): JsonObject | undefined {
  const source = recordMember(block, 'source');
  const sourceType = stringMember(source, 'type');
  if (!source) throw badRequest(`${at}.source: is required`, `${at}.source`);
  const title = stringMember(block, 'title');
  if (sourceType === 'base64') {
    const mediaType = requireString(source, 'media_type', `${at}.source`);
    const data = requireString(source, 'data', `${at}.source`);
    const file = { filename: title ?? 'document.pdf', file_data: `data:${mediaType};base64,${data}` };
    return { type: 'file', file };
  }
  if (sourceType === 'text' || sourceType === 'content') {
    const text =
      sourceType === 'text'
        ? requireString(source, 'data', `${at}.source`)
        : contentText(source, at, warnings);
    return { type: 'text', text: title === undefined ? text : `${title}\n\n${text}` };
  }
  warnings.add(
    `document sources of type ${clientText(String(sourceType))} are not supported on this route; the document is dropped`,
  );
  return undefined;
}

/**
 * The text of a document whose source is its own content (`{"type": "content", "content": …}`): a string, or
 * text blocks joined by blank lines; image blocks in it are dropped with a warning.
 */
function contentText(source: JsonObject, at: string, warnings: Warnings): string {
  const content = source.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    throw badRequest(`${at}.source.content: must be a string or an array of blocks`, `${at}.source.content`);
  const texts: string[] = [];
  blocksOf(content).forEach((block, index) => {
    if (block.type === 'text') texts.push(requireString(block, 'text', `${at}.source.content.${index}`));
    else
      warnings.add(
        `document content blocks of type ${clientText(String(block.type))} are dropped on this route`,
      );
  });
  return texts.join('\n\n');
}

/**
 * A `search_result` block (a user turn's or a tool result's: a search tool's find, with its source and title)
 * as text chat models read: title, source, then its text blocks. Anthropic's citations of it are lost.
 */
function searchResultText(block: JsonObject, at: string): string {
  const title = requireString(block, 'title', at);
  const source = requireString(block, 'source', at);
  const content = block.content;
  if (!Array.isArray(content))
    throw badRequest(`${at}.content: must be an array of text blocks`, `${at}.content`);
  const texts = blocksOf(content).map((inner, index) =>
    requireString(inner, 'text', `${at}.content.${index}`),
  );
  return [title, source, '', ...texts].join('\n');
}

function blocksOf(content: unknown): JsonObject[] {
  return Array.isArray(content) ? content.filter(isRecord) : [];
}

function requireString(object: JsonObject, key: string, at: string): string {
  const value = stringMember(object, key);
  if (value === undefined) throw badRequest(`${at}.${key}: is required and must be a string`, `${at}.${key}`);
  return value;
}
