import { isRecord, type JsonObject, tryParseJson } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import type { RedactCounts, Redactor } from './redact-text.js';

/**
 * Walkers over the places a message keeps text. They build new containers along the way and never mutate
 * their input; parts of kinds they do not know have every string masked but ids, kinds and opaque payloads
 * (`scrubUnknown`), and signed thinking blocks pass untouched. Names of tools and functions are
 * identifiers, not text, and are left alone (a chat participant's `name` is masked: redact-request.ts).
 */

/** Masks one text and remembers what it masked. */
export type Scrub = (text: string) => string;

/** A scrub bound to one redactor, with the running counts of everything it masked. */
export function createScrub(redactor: Redactor): { scrub: Scrub; counts: () => RedactCounts } {
  const counts: RedactCounts = {};
  const scrub: Scrub = (text) => {
    const result = redactor.redact(text);
    for (const [name, count] of Object.entries(result.counts)) counts[name] = (counts[name] ?? 0) + count;
    return result.text;
  };
  return { scrub, counts: () => ({ ...counts }) };
}

/** Part types whose `text` member is text (chat, Responses and Anthropic spellings). */
const TEXT_PARTS = new Set(['text', 'input_text', 'output_text']);

function withScrubbedString(record: JsonObject, key: string, scrub: Scrub): JsonObject {
  const value = record[key];
  return typeof value === 'string' ? withMembers(record, { [key]: scrub(value) }) : record;
}

/**
 * Every string of a parsed JSON value (`tool_use.input`), keys excepted: the model writes these objects to
 * the tool's schema, whose property names are not data, and a custom term that happens to be a property
 * name must not break the call (tool results are free-form and are masked as text, keys included). A
 * safe-integer number that a detector would mask (a card number sent as a number) becomes its masked
 * string, since the number itself cannot be masked.
 */
export function scrubJsonValue(value: unknown, scrub: Scrub): unknown {
  if (typeof value === 'string') return scrub(value);
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    const masked = scrub(String(value));
    return masked === String(value) ? value : masked;
  }
  if (Array.isArray(value)) return value.map((item) => scrubJsonValue(item, scrub));
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrubJsonValue(item, scrub)]));
}

/** JSON string and number tokens, a string followed by `:` being a key. */
const JSON_TOKEN = /"(?:[^"\\]|\\.)*"(\s*:)?|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g;

/**
 * Tool-call arguments: a JSON string whose string values (and numbers a detector recognises) are masked
 * token by token, keys excepted as in `scrubJsonValue`, so the result stays valid JSON with the caller's
 * formatting and number precision, and is byte-identical when nothing was found. Arguments that are not
 * JSON are masked as plain text.
 */
export function scrubArguments(args: string, scrub: Scrub): string {
  if (tryParseJson(args) === undefined) return scrub(args);
  return args.replace(JSON_TOKEN, (token: string, key: string | undefined) => {
    if (key !== undefined) return token;
    if (!token.startsWith('"')) {
      const masked = scrub(token);
      return masked === token ? token : JSON.stringify(masked);
    }
    const decoded: unknown = JSON.parse(token);
    if (typeof decoded !== 'string') return token;
    const masked = scrub(decoded);
    return masked === decoded ? token : JSON.stringify(masked);
  });
}

/**
 * Members of items and parts the walkers do not know that hold no text: kinds, ids (and every `…_id` or
 * `…_ids` member: `tool_use_id`, `vector_store_ids`), states, names, and opaque or binary payloads
 * (encrypted reasoning, signatures, URLs, base64 data), which must round-trip as they came.
 */
const NOT_TEXT = new Set([
  'type',
  'id',
  'call_id',
  'status',
  'role',
  'name',
  'encrypted_content',
  'signature',
  'image_url',
  'file_id',
  'file_data',
  'file_url',
  'url',
  'data',
  'mime_type',
  'media_type',
  'format',
  'detail',
]);

/**
 * An item or part of a kind the walkers do not know (a Responses `reasoning` summary, a hosted tool's
 * call with its query, code or output, a part type added later): every string masked, at any depth, but
 * those of the members in `NOT_TEXT`. Unknown is not a reason to send personal data on.
 */
export function scrubUnknown(value: unknown, scrub: Scrub): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((item) => scrubUnknown(item, scrub));
  if (!isRecord(value)) return value;
  const copy: JsonObject = {};
  for (const [key, item] of Object.entries(value))
    copy[key] = isNotText(key) ? item : scrubUnknown(item, scrub);
  return copy;
}

const isNotText = (key: string): boolean => NOT_TEXT.has(key) || key.endsWith('_id') || key.endsWith('_ids');

/**
 * The `annotations` an earlier answer's text carries back (citations: a page's title, a file's name): text
 * like any other, their URLs and ids kept (`scrubUnknown`).
 */
function withScrubbedAnnotations(record: JsonObject, scrub: Scrub): JsonObject {
  return Array.isArray(record.annotations)
    ? withMembers(record, { annotations: scrubUnknown(record.annotations, scrub) })
    : record;
}

/** Anthropic's signed thinking: its signature covers the text, which must reach Anthropic unchanged. */
const SIGNED_PARTS = new Set(['thinking', 'redacted_thinking']);

function scrubPart(part: unknown, scrub: Scrub): unknown {
  if (typeof part === 'string') return scrub(part);
  if (!isRecord(part) || typeof part.type !== 'string') return part;
  if (TEXT_PARTS.has(part.type))
    return withScrubbedAnnotations(withScrubbedString(part, 'text', scrub), scrub);
  switch (part.type) {
    case 'refusal':
      return withScrubbedString(part, 'refusal', scrub);
    case 'tool_result':
      return 'content' in part ? withMembers(part, { content: scrubContent(part.content, scrub) }) : part;
    case 'tool_use':
      return 'input' in part ? withMembers(part, { input: scrubJsonValue(part.input, scrub) }) : part;
    case 'document':
      return scrubDocument(part, scrub);
    default:
      return SIGNED_PARTS.has(part.type) ? part : scrubUnknown(part, scrub);
  }
}

/** Anthropic documents with a plain-text or content-block source; PDFs and URLs are not text here. */
function scrubDocument(part: JsonObject, scrub: Scrub): JsonObject {
  const source = part.source;
  if (!isRecord(source)) return part;
  if (source.type === 'text') return withMembers(part, { source: withScrubbedString(source, 'data', scrub) });
  if (source.type === 'content')
    return withMembers(part, {
      source: withMembers(source, { content: scrubContent(source.content, scrub) }),
    });
  return part;
}

/**
 * A message's content in any of the APIs' shapes: a string, or an array of parts where the text parts
 * (`text`, `input_text`, `output_text`, `refusal`), tool results (recursively) and tool-use inputs are
 * masked and everything else is kept.
 */
export function scrubContent(content: unknown, scrub: Scrub): unknown {
  if (typeof content === 'string') return scrub(content);
  if (!Array.isArray(content)) return content;
  return content.map((part) => scrubPart(part, scrub));
}
