import { announcesResponse } from '../codecs/responses/announcing-events.js';
import { isRecord, type JsonObject } from '../json/json.js';
import type { ChatWirePart, ResponsesStreamPart } from '../providers/provider-adapter.js';

/**
 * Which stream parts only announce an answer, for each stream codec's `preliminary` (see `openStream`): the
 * attempt is committed to at the first part that carries some of the answer, so a provider that fails right
 * after announcing one (a router's error chunk after the role chunk, OpenAI's `error` event after
 * `response.created`) still falls back to the next.
 */

/**
 * A chat part before any of the answer: usage alone, or a chunk whose deltas hold only the role and empty
 * members (`{"role":"assistant","content":"","refusal":null}`, an empty list) and no finish reason. Text,
 * reasoning, a refusal, tool calls, audio or a finish reason commit.
 */
export function preliminaryChatPart(part: ChatWirePart): boolean {
  if (part.type === 'usage') return true;
  if (part.type === 'deltas') return false;
  if (part.text !== undefined) return part.text === '';
  const choices = part.chunk.choices;
  if (!Array.isArray(choices)) return true;
  return choices.every((choice) => isRecord(choice) && announcesOnly(choice));
}

function announcesOnly(choice: JsonObject): boolean {
  if (choice.finish_reason !== undefined && choice.finish_reason !== null) return false;
  const delta = choice.delta;
  if (delta === undefined || delta === null) return true;
  if (!isRecord(delta)) return false;
  for (const key in delta) {
    const value = delta[key];
    if (key === 'role' || value === null || value === '' || (Array.isArray(value) && value.length === 0))
      continue;
    return false;
  }
  return true;
}

/** `message_start` and `ping`: the Messages events before the first content block. */
export function preliminaryMessagesEvent(part: { event: JsonObject }): boolean {
  const type = part.event.type;
  return type === 'message_start' || type === 'ping';
}

/** The Responses events before any output (`announcesResponse`). */
export function preliminaryResponsesEvent(part: ResponsesStreamPart): boolean {
  return announcesResponse(part.event.type);
}
