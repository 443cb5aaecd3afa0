import type { Warnings } from '../../codecs/shared/translation-warnings.js';
import { badRequest } from '../../errors/gateway-error.js';
import { clientText } from '../../json/client-text.js';
import { type JsonObject, recordMember, stringMember } from '../../json/json.js';

/** Media types by file extension, for URLs Gemini receives as `fileData` (which should carry one). */
const MIME_BY_EXTENSION: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  txt: 'text/plain',
  mp3: 'audio/mp3',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  flac: 'audio/flac',
  aac: 'audio/aac',
  mp4: 'video/mp4',
  mov: 'video/mov',
  webm: 'video/webm',
};

const DATA_URI = /^data:([^;,]+)[^,]*;base64,(.*)$/s;

/**
 * One part of a user message as a Gemini part: text as `text`, images, audio and files inline as
 * `inlineData` (from a base64 data URI) or by reference as `fileData` (an http(s) or Gemini Files URL).
 * A part Gemini cannot take is dropped with a warning.
 */
export function contentPart(part: unknown, at: string, warnings: Warnings): JsonObject | undefined {
  const type = stringMember(part, 'type');
  if (type === 'text') return { text: stringMember(part, 'text') ?? '' };
  if (type === 'image_url') return imagePart(recordMember(part, 'image_url'), at, warnings);
  if (type === 'input_audio') {
    const audio = recordMember(part, 'input_audio');
    const format = stringMember(audio, 'format') ?? 'wav';
    return { inlineData: { mimeType: `audio/${format}`, data: stringMember(audio, 'data') ?? '' } };
  }
  if (type === 'file') {
    const fileData = stringMember(recordMember(part, 'file'), 'file_data');
    if (fileData !== undefined) return dataUriPart(fileData, `${at}.file.file_data`);
    warnings.add('file parts with a file_id are not supported by Gemini; the file was dropped');
    return undefined;
  }
  warnings.add(`content parts of type ${clientText(type ?? 'unknown')} are not supported by Gemini; dropped`);
  return undefined;
}

function imagePart(image: JsonObject | undefined, at: string, warnings: Warnings): JsonObject {
  const url = stringMember(image, 'url');
  if (url === undefined) throw badRequest(`${at}.image_url.url: is required`, `${at}.image_url.url`);
  const detail = stringMember(image, 'detail');
  if (detail !== undefined && detail !== 'auto') {
    warnings.add(`image_url.detail "${clientText(detail)}" is not supported by Gemini; ignored`);
  }
  return url.startsWith('data:') ? dataUriPart(url, `${at}.image_url.url`) : urlPart(url, at, warnings);
}

function dataUriPart(uri: string, at: string): JsonObject {
  const match = DATA_URI.exec(uri);
  if (!match) throw badRequest(`${at}: data URIs must be base64 (data:<type>;base64,...)`, at);
  return { inlineData: { mimeType: match[1], data: match[2] } };
}

/** A URL as `fileData`, its media type guessed from the extension (omitted, with a warning, when unknown). */
function urlPart(url: string, at: string, warnings: Warnings): JsonObject {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw badRequest(`${at}.image_url.url: must be a data URI or an http(s) URL`, `${at}.image_url.url`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw badRequest(`${at}.image_url.url: must be a data URI or an http(s) URL`, `${at}.image_url.url`);
  }
  const extension = /\.([a-z0-9]+)$/i.exec(parsed.pathname)?.[1]?.toLowerCase();
  const mimeType = extension === undefined ? undefined : MIME_BY_EXTENSION[extension];
  if (mimeType === undefined) {
    // By its place, not its URL: warnings are kept in the record (zdr ones too), and a URL may hold a
    // presigned credential or a path that names someone.
    warnings.add(`the media type of the image URL at ${at} is unknown; sent to Gemini without a mimeType`);
    return { fileData: { fileUri: url } };
  }
  return { fileData: { mimeType, fileUri: url } };
}
