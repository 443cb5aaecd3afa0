import type { RequestKind } from '../codecs/request-kind.js';
import type { JsonObject } from '../json/json.js';
import { latestUserPosition, viewConversation } from '../optimizations/conversation-view.js';

/** The text of the latest user turn: what intent, complexity, image intent and skills are judged on. */
export function latestPrompt(request: JsonObject, kind: RequestKind): string {
  const { turns } = viewConversation(request, kind);
  return turns[latestUserPosition(turns)]?.text ?? '';
}
