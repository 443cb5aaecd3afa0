import type { RequestKind } from '../codecs/request-kind.js';
import type { JsonObject } from '../json/json.js';
import { MAX_JUDGED_CHARS } from '../scoring/clip-text.js';
import type { Scorer } from '../scoring/scorer.js';
import { applyConversationEdits, type TurnEdit } from './apply-conversation-edits.js';
import { latestUserPosition, type Turn, type TurnRole, viewConversation } from './conversation-view.js';
import { pacer } from './pace.js';
import { shortenText } from './shorten-text.js';
import { groupTurns } from './turn-groups.js';

/**
 * `chatHistoryCompression`: when the latest user message depends little on the earlier conversation (the
 * scorer's `contextDependence` below `options.score`), earlier turns it does not need are dropped and long
 * old text blocks shortened. At or above the threshold nothing changes.
 *
 * Rules:
 * - Kept always: system and developer messages (and Responses `instructions`, which are not in the
 *   conversation), the latest user turn (with the tool results right before its message when user turns
 *   carry them: see `latestTurnStart`) and every turn after it (the tool calls and results of the turn in progress), and
 *   Responses items of types the gateway does not know.
 * - An earlier turn is kept when the scorer's `relevance` of it to the latest user message is at least
 *   `KEEP_RELEVANCE`. There is no unconditional "last exchange": a low dependence says the latest message
 *   stands on its own, and a previous answer it refers to scores as relevant.
 * - Groups are kept or dropped whole (see `turn-groups.ts`): a tool call with all its results (parallel
 *   calls included), and the consecutive items of one Responses output (reasoning, message, calls). A group
 *   is kept when any of its turns is.
 * - Validity: if the first kept turn after the system messages would be an assistant turn, a tool result or
 *   a reasoning item (its question dropped), the user turn before it is kept as well, since several vendors
 *   reject a conversation that opens with the model. Consecutive turns of one role are valid everywhere we
 *   send (the Anthropic and Gemini adapters merge them) and are left as they are.
 * - Kept earlier user, assistant and tool turns whose own relevance is below `WHOLE_RELEVANCE` have their
 *   text blocks longer than `LONG_TEXT_CHARS` shortened to head and tail (see `shorten-text.ts`). Tool-call
 *   arguments are never shortened: they must stay valid JSON.
 * - Only the latest `MAX_JUDGED_HISTORY_CHARS` of earlier turns are judged, for the dependence and for
 *   relevance; older turns score 0, and so are dropped when the history is compressed (unless pinned, or
 *   grouped with a kept turn). A message that depends little on its last 64,000 tokens of conversation
 *   hardly needs what came before them.
 */

/**
 * The most characters of earlier turns judged (about 64,000 tokens), the latest first: a turn's text counts
 * for at most what a judgement reads of it (`MAX_JUDGED_CHARS`, plus its joint). Turns before the judged
 * ones are read as irrelevant, so a conversation of 100,000 turns costs what its recent part costs rather
 * than seconds of one thread's time (see the module comment).
 */
export const MAX_JUDGED_HISTORY_CHARS = 262_144;

/** Earlier turns scoring below this relevance to the latest user message are dropped. */
export const KEEP_RELEVANCE = 0.3;
/** Kept earlier turns scoring at least this are not shortened. */
export const WHOLE_RELEVANCE = 0.6;

export interface CompressionOptions {
  /** Compress only when the latest message's dependence on the earlier conversation is below this. */
  score: number;
  /**
   * The request's user turns carry their tool results: an Anthropic Messages user turn holds its
   * tool_result blocks and its text in one message, which the translation to chat splits into tool messages
   * and a user message. The results before the latest user message are then part of it, never dropped.
   */
  toolResultsInUserTurn?: boolean | undefined;
}

export interface CompressionReport {
  droppedTurns: number;
  shortenedTurns: number;
  /** The scorer's dependence of the latest user message on the earlier turns; 0 when there are none. */
  dependence: number;
}

/** Roles a conversation must not open with (its question having been dropped). */
const MODEL_ROLES = new Set<TurnRole>(['assistant', 'tool', 'reasoning']);

/**
 * Where the latest user turn begins: at its message, or, when user turns carry their tool results
 * (`CompressionOptions.toolResultsInUserTurn`), at the tool results right before it: they answer the call
 * the model just made, and belong to the turn in progress.
 */
function latestTurnStart(turns: readonly Turn[], latest: number, toolResultsInUserTurn: boolean): number {
  let start = latest;
  while (toolResultsInUserTurn && start > 0 && turns[start - 1]?.role === 'tool') start -= 1;
  return start;
}

/** Kept turns (positions in `turns`): pinned ones, relevant ones, and the groups they belong to. */
function keptPositions(
  turns: readonly Turn[],
  { latest, start }: { latest: number; start: number },
  relevance: ReadonlyMap<number, number>,
) {
  const groups = groupTurns(turns);
  const keptGroups = new Set<number>();
  turns.forEach((turn, position) => {
    const pinned = position >= start || turn.role === 'system' || turn.role === 'other';
    if (pinned || (relevance.get(position) ?? 0) >= KEEP_RELEVANCE) keptGroups.add(groups[position] ?? -1);
  });
  const kept = new Set(
    turns.flatMap((_, position) => (keptGroups.has(groups[position] ?? -1) ? [position] : [])),
  );
  const first = turns.findIndex((turn, position) => kept.has(position) && turn.role !== 'system');
  const opener = turns[first];
  if (first < latest && opener && MODEL_ROLES.has(opener.role)) {
    const question = turns.findLastIndex((turn, position) => position < first && turn.role === 'user');
    if (question >= 0) kept.add(question);
  }
  return kept;
}

/** Shortened text blocks of a kept earlier turn, or undefined when none is long. */
function shortenedTexts(turn: Turn): Map<number, string> | undefined {
  if (turn.role !== 'user' && turn.role !== 'assistant' && turn.role !== 'tool') return undefined;
  const texts = new Map<number, string>();
  for (const block of turn.blocks) {
    const short = shortenText(block.text);
    if (short !== block.text) texts.set(block.part, short);
  }
  return texts.size > 0 ? texts : undefined;
}

/** `start`: where the latest user turn begins (`latestTurnStart`); `latest`: its user message. */
function planEdits(
  turns: readonly Turn[],
  latest: { latest: number; start: number },
  relevance: ReadonlyMap<number, number>,
) {
  const kept = keptPositions(turns, latest, relevance);
  const edits = new Map<number, TurnEdit>();
  let droppedTurns = 0;
  let shortenedTurns = 0;
  const { start } = latest;
  turns.forEach((turn, position) => {
    if (!kept.has(position)) {
      edits.set(turn.index, { drop: true });
      droppedTurns += 1;
      return;
    }
    if (position >= start || turn.role === 'system') return;
    if ((relevance.get(position) ?? 0) >= WHOLE_RELEVANCE) return;
    const texts = shortenedTexts(turn);
    if (!texts) return;
    edits.set(turn.index, { texts });
    shortenedTurns += 1;
  });
  return { edits, droppedTurns, shortenedTurns };
}

/** The latest of the earlier turns' positions whose judged text fits in `MAX_JUDGED_HISTORY_CHARS`. */
function judgedWindow(turns: readonly Turn[], earlier: readonly number[]): readonly number[] {
  let chars = 0;
  for (let at = earlier.length - 1; at >= 0; at--) {
    chars += Math.min(turns[earlier[at] ?? 0]?.text.length ?? 0, MAX_JUDGED_CHARS) + 1;
    if (chars > MAX_JUDGED_HISTORY_CHARS) return earlier.slice(at + 1);
  }
  return earlier;
}

/**
 * Drops the earlier turns the latest user message does not need and shortens long old text blocks, when
 * the message depends on the earlier conversation less than `options.score`. Returns a new request (the
 * input is not mutated) and what was done.
 */
export async function compressHistory<R extends JsonObject>(
  request: R,
  kind: RequestKind,
  options: CompressionOptions,
  scorer: Scorer,
  pace: () => Promise<void> | undefined = pacer(),
): Promise<{ request: R; report: CompressionReport }> {
  const unchanged = (dependence: number) => ({
    request: { ...request },
    report: { droppedTurns: 0, shortenedTurns: 0, dependence },
  });
  const { turns } = viewConversation(request, kind);
  const latest = latestUserPosition(turns);
  const earlier = judgedWindow(
    turns,
    turns.flatMap((turn, position) => (position < latest && turn.role !== 'system' ? [position] : [])),
  );
  const latestTurn = turns[latest];
  if (!latestTurn || earlier.length === 0) return unchanged(0);
  const earlierTexts = earlier.map((position) => turns[position]?.text ?? '');
  // A turn of the event loop between the steps, each of which takes a tenth of a second or so for a
  // conversation of 100,000 turns (see `pace.ts`).
  await pace();
  const dependence = await scorer.contextDependence(latestTurn.text, earlierTexts);
  if (dependence >= options.score) return unchanged(dependence);
  const scores = await scorer.relevance(latestTurn.text, earlierTexts);
  const relevance = new Map(earlier.map((position, i) => [position, scores[i] ?? 0]));
  await pace();
  const start = latestTurnStart(turns, latest, options.toolResultsInUserTurn === true);
  const { edits, droppedTurns, shortenedTurns } = planEdits(turns, { latest, start }, relevance);
  await pace();
  return {
    request: applyConversationEdits(request, kind, edits),
    report: { droppedTurns, shortenedTurns, dependence },
  };
}
