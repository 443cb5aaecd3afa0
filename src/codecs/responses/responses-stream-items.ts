import type { JsonObject } from '../../json/json.js';
import { outputTextPart, refusalPart } from './chat-to-responses-result.js';

/** The state of the output items of one translated Responses stream (`chat-stream-to-responses-events`). */

export type PartType = 'output_text' | 'refusal';

interface ItemBase {
  id: string;
  outputIndex: number;
  /** No fragment will join this item any more; it closes once it is the live item. */
  sealed: boolean;
  added: boolean;
  incomplete: boolean;
}

export interface MessageState extends ItemBase {
  kind: 'message';
  /** Fragments received but not yet sent, because an earlier item is still live. */
  pending: { type: PartType; delta: string }[];
  parts: { type: PartType; text: string }[];
}

export interface CallState extends ItemBase {
  kind: 'function_call';
  pending: string[];
  callId: string;
  name: string;
  arguments: string;
}

/**
 * A reasoning item: reasoning text streamed as its summary (when the request asked for one), and Claude's
 * signed thinking blocks, received whole once the thinking they sign has streamed.
 */
export interface ReasoningState extends ItemBase {
  kind: 'reasoning';
  blocks: JsonObject[];
  /** Reasoning text received but not yet sent, because an earlier item is still live. */
  pending: string[];
  /** The summary text sent so far; its summary part is open once this is not empty. */
  summary: string;
}

export type ItemState = MessageState | CallState | ReasoningState;

export const NEW_ITEM = { outputIndex: -1, sealed: false, added: false, incomplete: false };

/** A content part of a message item, whole. */
export const contentPart = (type: PartType, text: string): JsonObject =>
  type === 'output_text' ? outputTextPart(text) : refusalPart(text);
