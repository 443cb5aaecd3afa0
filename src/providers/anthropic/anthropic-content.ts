import { clientText } from '../../json/client-text.js';
import { isRecord, type JsonObject, recordMember, stringMember } from '../../json/json.js';
import { withMembers } from '../../json/with-members.js';
import type { Warnings } from './anthropic-warnings.js';

/**
 * Chat content (a string or OpenAI content parts) as Messages API content blocks: text, images (data URI →
 * base64 source, http(s) → url source), PDF and plain-text files as documents. `cache_control` on a part is
 * kept. Parts of a type OpenAI does not define are Anthropic blocks sent by the caller and pass untouched.
 * Reference: https://docs.claude.com/en/api/messages (content blocks), .../build-with-claude/vision, .../pdf-support
 */
export function contentBlocks(content: unknown, warnings: Warnings): JsonObject[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const blocks: JsonObject[] = [];
  for (const part of content) {
    if (!isRecord(part)) continue;
    const block = partBlock(part, warnings);
    if (!block) continue;
    blocks.push(
      part.cache_control === undefined ? block : withMembers(block, { cache_control: part.cache_control }),
    );
  }
  return blocks;
}

/** Text-only content for the top-level `system`; other parts are dropped with a warning. */
export function systemBlocks(content: unknown, warnings: Warnings): JsonObject[] {
  return contentBlocks(content, warnings).filter((block) => {
    if (block.type === 'text') return true;
    warnings.add(
      `system messages can hold only text on Anthropic; a ${clientText(String(block.type))} part was dropped`,
    );
    return false;
  });
}

function partBlock(part: JsonObject, warnings: Warnings): JsonObject | undefined {
  switch (part.type) {
    case 'text': {
      const text = stringMember(part, 'text') ?? '';
      return text === '' ? undefined : { type: 'text', text };
    }
    case 'refusal': {
      const text = stringMember(part, 'refusal') ?? '';
      return text === '' ? undefined : { type: 'text', text };
    }
    case 'image_url':
      return imageBlock(part, warnings);
    case 'file':
      return documentBlock(recordMember(part, 'file'), warnings);
    case 'input_audio':
      warnings.add('audio input is not supported by the Anthropic Messages API; the audio part was dropped');
      return undefined;
    default:
      return part;
  }
}

function imageBlock(part: JsonObject, warnings: Warnings): JsonObject | undefined {
  const imageUrl = part.image_url;
  const url = typeof imageUrl === 'string' ? imageUrl : stringMember(imageUrl, 'url');
  const detail = stringMember(imageUrl, 'detail');
  if (detail !== undefined && detail !== 'auto') {
    warnings.add('image_url.detail is not supported by the Anthropic Messages API; ignored');
  }
  const inline = url === undefined ? undefined : parseDataUri(url);
  if (inline)
    return { type: 'image', source: { type: 'base64', media_type: inline.mediaType, data: inline.data } };
  if (url !== undefined && /^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  warnings.add('image_url parts need a data URI or an http(s) URL on Anthropic; an image was dropped');
  return undefined;
}

function documentBlock(file: JsonObject | undefined, warnings: Warnings): JsonObject | undefined {
  const fileData = stringMember(file, 'file_data');
  const filename = stringMember(file, 'filename');
  const inline =
    fileData === undefined
      ? undefined
      : (parseDataUri(fileData) ??
        (filename?.toLowerCase().endsWith('.pdf')
          ? { mediaType: 'application/pdf', data: fileData }
          : undefined));
  const title = filename === undefined ? {} : { title: filename };
  if (inline?.mediaType === 'application/pdf') {
    return {
      type: 'document',
      source: { type: 'base64', media_type: 'application/pdf', data: inline.data },
      ...title,
    };
  }
  if (inline?.mediaType === 'text/plain') {
    const data = Buffer.from(inline.data, 'base64').toString('utf8');
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data }, ...title };
  }
  warnings.add(
    inline
      ? `files of type ${clientText(inline.mediaType)} are not supported by the Anthropic Messages API; the file was dropped`
      : 'file parts need file_data (a data URI) on Anthropic; the file was dropped',
  );
  return undefined;
}

const DATA_URI = /^data:([^;,]+)((?:;[^;,]*)*),(.*)$/s;

/** `data:<type>[;base64],<payload>` as a media type and base64 data. */
export function parseDataUri(url: string): { mediaType: string; data: string } | undefined {
  const match = DATA_URI.exec(url);
  if (!match) return undefined;
  const mediaType = match[1] ?? '';
  const payload = match[3] ?? '';
  const isBase64 = (match[2] ?? '').split(';').includes('base64');
  const data = isBase64 ? payload : Buffer.from(decodeURIComponent(payload), 'utf8').toString('base64');
  return { mediaType, data };
}

/** A `cache_control` set on a whole chat message goes on its last block (the API has it on blocks only). */
export function withMessageCacheControl(blocks: JsonObject[], message: JsonObject): JsonObject[] {
  const last = blocks.at(-1);
  if (message.cache_control === undefined || !last) return blocks;
  return [...blocks.slice(0, -1), withMembers(last, { cache_control: message.cache_control })];
}
