import type { RequestKind } from '../codecs/request-kind.js';
import { arrayMember, isRecord, type JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import { isResponsesOutputItem, WHOLE_CONTENT } from './conversation-view.js';

/**
 * The way back from a `ConversationView`: edits addressed by turn index (position in `messages` or
 * `input`) and part index, applied to a request as a new object. The input request is never mutated, and
 * everything an edit does not touch (unknown properties of the request, the messages and the parts) is
 * copied as it is.
 */

export interface TurnEdit {
  /** Remove the whole message or item. */
  drop?: boolean;
  /** New text per text block (a part index, or `WHOLE_CONTENT` for a string content or output). */
  texts?: ReadonlyMap<number, string>;
  /** Media parts (by part index) replaced by a text part with this text. */
  placeholders?: ReadonlyMap<number, string>;
}

/** Edits by turn index. */
export type ConversationEdits = ReadonlyMap<number, TurnEdit>;

function editPart(part: unknown, index: number, edit: TurnEdit, textType: string): unknown {
  const placeholder = edit.placeholders?.get(index);
  if (placeholder !== undefined) return { type: textType, text: placeholder };
  const text = edit.texts?.get(index);
  return text !== undefined && isRecord(part) ? withMembers(part, { text }) : part;
}

function editContent(content: unknown, edit: TurnEdit, textType: string): unknown {
  if (typeof content === 'string') return edit.texts?.get(WHOLE_CONTENT) ?? content;
  if (!Array.isArray(content)) return content;
  return content.map((part, index) => editPart(part, index, edit, textType));
}

/** The member that holds a message's or item's content, and the type its new text parts take. */
function contentSlot(item: JsonObject, kind: RequestKind): { key: string; textType: string } {
  if (kind === 'chat') return { key: 'content', textType: 'text' };
  if (isResponsesOutputItem(item)) return { key: 'output', textType: 'input_text' };
  return { key: 'content', textType: item.role === 'assistant' ? 'output_text' : 'input_text' };
}

function editItem(item: unknown, edit: TurnEdit, kind: RequestKind): unknown {
  if (!isRecord(item)) return item;
  const { key, textType } = contentSlot(item, kind);
  if (!(key in item)) return item;
  return withMembers(item, { [key]: editContent(item[key], edit, textType) });
}

function editList(list: readonly unknown[], edits: ConversationEdits, kind: RequestKind): unknown[] {
  const result: unknown[] = [];
  list.forEach((item, index) => {
    const edit = edits.get(index);
    if (!edit) result.push(item);
    else if (!edit.drop) result.push(editItem(item, edit, kind));
  });
  return result;
}

/**
 * A copy of the request with the edits applied to its `messages` (chat) or `input` items (Responses). A
 * string Responses `input` is a single latest turn, which no optimization edits, so it is kept as it is.
 */
export function applyConversationEdits<R extends JsonObject>(
  request: R,
  kind: RequestKind,
  edits: ConversationEdits,
): R {
  const key = kind === 'chat' ? 'messages' : 'input';
  const list = arrayMember(request, key);
  if (!list || edits.size === 0) return { ...request };
  return withMembers(request, { [key]: editList(list, edits, kind) }) as R;
}
