import type { RequestKind } from '../codecs/request-kind.js';
import { arrayMember, isRecord, type JsonObject, recordMember, stringMember } from '../json/json.js';

/**
 * A neutral view of a conversation, read from either canonical request shape (chat completions `messages`,
 * Responses `input`), so each optimization is written once. The view only reads; edits go back through
 * `applyConversationEdits`, which addresses turns and parts by their index in the original arrays.
 */

/** The API shape of a request. */

/**
 * `system` covers system and developer messages; `tool` a tool result (chat `tool`/`function` message,
 * Responses `*_output` item); `assistant` a model message or a model-made call (chat `tool_calls`,
 * Responses `function_call`, `custom_tool_call`, `computer_call`, ...); `reasoning` a Responses reasoning
 * item, which belongs with the item after it; `other` any item the gateway does not know (kept as is).
 */
export type TurnRole = 'system' | 'user' | 'assistant' | 'tool' | 'reasoning' | 'other';

export type MediaKind = 'image' | 'audio';

/** Key of a text block that is a whole string content (or a whole string tool output), not a part. */
export const WHOLE_CONTENT = -1;

/** A text a turn carries that the gateway may rewrite: a part's `text`, or the whole string content. */
export interface TextBlock {
  part: number;
  text: string;
}

export interface MediaPart {
  part: number;
  kind: MediaKind;
}

export interface Turn {
  /** Position in `messages` or `input`. */
  index: number;
  role: TurnRole;
  /** Everything the turn says, for scoring: its text blocks, and the names and arguments of its calls. */
  text: string;
  blocks: TextBlock[];
  media: readonly MediaPart[];
  /** Ids of the tool calls this turn makes, and of those whose results it carries. */
  callIds: readonly string[];
  resultIds: readonly string[];
  /** Names of the functions this turn calls. */
  calledTools: readonly string[];
}

export interface ConversationView {
  turns: Turn[];
  /** Responses `instructions` when a string, else empty. */
  instructions: string;
}

const TEXT_PARTS = new Set(['text', 'input_text', 'output_text']);
const MEDIA_PARTS = new Map<string, MediaKind>([
  ['image_url', 'image'],
  ['input_image', 'image'],
  ['input_audio', 'audio'],
]);

/** Shared by every turn without calls or results (never written to). */
const NONE: readonly string[] = [];
const NO_MEDIA: readonly MediaPart[] = [];

function readContent(content: unknown): { blocks: TextBlock[]; media: readonly MediaPart[] } {
  if (typeof content === 'string')
    return { blocks: [{ part: WHOLE_CONTENT, text: content }], media: NO_MEDIA };
  const blocks: TextBlock[] = [];
  let media: readonly MediaPart[] = NO_MEDIA;
  let found: MediaPart[] | undefined;
  if (!Array.isArray(content)) return { blocks, media };
  for (let index = 0; index < content.length; index++) {
    const part: unknown = content[index];
    const type = stringMember(part, 'type') ?? '';
    const text = stringMember(part, 'text');
    const kind = MEDIA_PARTS.get(type);
    if (TEXT_PARTS.has(type) && text !== undefined) blocks.push({ part: index, text });
    else if (kind) {
      found ??= [];
      found.push({ part: index, kind });
      media = found;
    }
  }
  return { blocks, media };
}

/** The blocks' texts and the calls' text, each non-empty one on a line of its own. */
function turnText(blocks: readonly TextBlock[], extra: string): string {
  let text = '';
  for (const block of blocks) {
    if (block.text === '') continue;
    text = text === '' ? block.text : `${text}\n${block.text}`;
  }
  if (extra === '') return text;
  return text === '' ? extra : `${text}\n${extra}`;
}

function makeTurn(index: number, role: TurnRole, content: unknown, extra: Partial<Turn> = {}): Turn {
  const { blocks, media } = readContent(content);
  return {
    index,
    role,
    blocks,
    media,
    callIds: extra.callIds ?? NONE,
    resultIds: extra.resultIds ?? NONE,
    calledTools: extra.calledTools ?? NONE,
    text: turnText(blocks, extra.text ?? ''),
  };
}

const present = (value: string | undefined): value is string => value !== undefined && value !== '';

/** Chat `tool_calls` (function and custom tools) and the legacy `function_call`. */
function chatCalls(message: JsonObject): Partial<Turn> {
  if (message.tool_calls === undefined && message.function_call === undefined) return {};
  const calls = arrayMember(message, 'tool_calls') ?? [];
  const targets = calls.map((call) => recordMember(call, 'function') ?? recordMember(call, 'custom'));
  const legacy = recordMember(message, 'function_call');
  const legacyName = stringMember(legacy, 'name');
  const calledTools = [...targets.map((target) => stringMember(target, 'name')), legacyName].filter(present);
  const callIds = calls.map((call) => stringMember(call, 'id')).filter(present);
  if (present(legacyName)) callIds.push(`function:${legacyName}`);
  const text = [...targets, legacy]
    .map((target) => [
      stringMember(target, 'name'),
      stringMember(target, 'arguments'),
      stringMember(target, 'input'),
    ])
    .flatMap((parts) => parts.filter(present))
    .join(' ');
  return { calledTools, callIds, text };
}

function chatTurn(message: unknown, index: number): Turn {
  if (!isRecord(message)) return makeTurn(index, 'other', undefined);
  switch (message.role) {
    case 'system':
    case 'developer':
      return makeTurn(index, 'system', message.content);
    case 'user':
      return makeTurn(index, 'user', message.content);
    case 'assistant':
      return makeTurn(index, 'assistant', message.content, chatCalls(message));
    case 'tool':
      return makeTurn(index, 'tool', message.content, {
        resultIds: [stringMember(message, 'tool_call_id')].filter(present),
      });
    case 'function':
      return makeTurn(index, 'tool', message.content, {
        resultIds: [stringMember(message, 'name')].filter(present).map((name) => `function:${name}`),
      });
    default:
      return makeTurn(index, 'other', undefined);
  }
}

const MESSAGE_ROLES = new Map<string, TurnRole>([
  ['system', 'system'],
  ['developer', 'system'],
  ['user', 'user'],
  ['assistant', 'assistant'],
]);

/** Whether a Responses item is a tool result (`function_call_output`, `computer_call_output`, ...). */
export function isResponsesOutputItem(item: JsonObject): boolean {
  const type = stringMember(item, 'type') ?? '';
  return type.endsWith('_output') && present(stringMember(item, 'call_id'));
}

function responsesTurn(item: unknown, index: number): Turn {
  if (!isRecord(item)) return makeTurn(index, 'other', undefined);
  const type = stringMember(item, 'type');
  const role = MESSAGE_ROLES.get(stringMember(item, 'role') ?? '');
  if (role && (type === undefined || type === 'message')) return makeTurn(index, role, item.content);
  const callId = stringMember(item, 'call_id');
  if (isResponsesOutputItem(item)) return makeTurn(index, 'tool', item.output, { resultIds: [callId ?? ''] });
  if (present(callId)) {
    const name = stringMember(item, 'name');
    const text = [name, stringMember(item, 'arguments'), stringMember(item, 'input')].filter(present);
    const calledTools = type === 'function_call' && present(name) ? [name] : [];
    return makeTurn(index, 'assistant', undefined, { callIds: [callId], calledTools, text: text.join(' ') });
  }
  if (type === 'reasoning') {
    const summary = (arrayMember(item, 'summary') ?? []).map((part) => stringMember(part, 'text'));
    return makeTurn(index, 'reasoning', undefined, { text: summary.filter(present).join('\n') });
  }
  return makeTurn(index, 'other', undefined);
}

/** Reads the conversation of a chat or Responses request (a string `input` is one user turn). */
export function viewConversation(request: JsonObject, kind: RequestKind): ConversationView {
  if (kind === 'chat') {
    const messages = arrayMember(request, 'messages') ?? [];
    return { turns: messages.map(chatTurn), instructions: '' };
  }
  const instructions = stringMember(request, 'instructions') ?? '';
  const input = request.input;
  if (typeof input === 'string') return { turns: [makeTurn(0, 'user', input)], instructions };
  return { turns: (Array.isArray(input) ? input : []).map(responsesTurn), instructions };
}

/** Position in `turns` of the latest user turn, or -1 when there is none. */
export function latestUserPosition(turns: readonly Turn[]): number {
  return turns.findLastIndex((turn) => turn.role === 'user');
}
