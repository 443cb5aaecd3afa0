import type { RequestKind } from '../codecs/request-kind.js';
import type { JsonObject } from '../json/json.js';
import type { Scorer } from '../scoring/scorer.js';
import { applyConversationEdits, type TurnEdit } from './apply-conversation-edits.js';
import { latestUserPosition, type MediaKind, type Turn, viewConversation } from './conversation-view.js';

/**
 * `mediaOptimization`: images and audio in earlier turns that the latest user message does not need are
 * replaced by a short text part (`[image removed by the gateway]`), so the turn keeps its shape and the
 * model knows something was there.
 *
 * Only user, assistant and tool turns before the latest user turn are touched: the latest turn, the turns
 * after it (the tool results of the turn in progress) and system messages keep their media. Files (PDFs and
 * other documents) are not media here and are kept.
 *
 * A media part is needed, and kept, when either
 * 1. the latest message names its kind (`IMAGE_WORDS` for images, `AUDIO_WORDS` for audio) and either
 *    points back (`BACK_REFERENCE`: "above", "earlier", "the one I sent", ...) or depends on the earlier
 *    conversation (`contextDependence` at least `MEDIA_DEPENDENCE`): "what does the chart show?"; or
 * 2. the latest message depends on the earlier conversation (at least `MEDIA_DEPENDENCE`) and the turn that
 *    carries the media is relevant to it (`relevance` at least `MEDIA_TURN_RELEVANCE`): "what was the total
 *    on the Lisbon receipt?" after "here is my receipt from Lisbon" with a photo.
 * Every part of a needed kind is kept ("compare the first and the second photo" needs both).
 */

export const IMAGE_WORDS =
  /\b(?:images?|pictures?|pics?|photos?|photographs?|screenshots?|screen shots?|diagrams?|charts?|graphs?|figures?|drawings?|sketch(?:es)?|logos?|scans?|illustrations?|infographics?|slides?|visuals?)\b/i;
export const AUDIO_WORDS =
  /\b(?:audio|recordings?|voice(?: notes?| memos?| messages?)?|clips?|sounds?|songs?|podcasts?|listen(?:ed|ing)?|heard|transcri(?:be|bed|pts?|ptions?))\b/i;
export const BACK_REFERENCE =
  /\b(?:above|earlier|previous(?:ly)?|before|attached|sent|shared|uploaded|posted|showed|that|those|first|second|last|same|again)\b/i;

/** The dependence at which the latest message is taken to refer back to what came before. */
export const MEDIA_DEPENDENCE = 0.5;
/** The relevance of a media-bearing turn at which a dependent message is taken to refer to it. */
export const MEDIA_TURN_RELEVANCE = 0.5;

const PLACEHOLDERS: Record<MediaKind, string> = {
  image: '[image removed by the gateway]',
  audio: '[audio removed by the gateway]',
};

export interface MediaReport {
  removedParts: number;
}

/** Media kinds the latest message names in a way that makes old media of that kind needed. */
function namedKinds(latest: string, dependence: number): Set<MediaKind> {
  const kinds = new Set<MediaKind>();
  if (!BACK_REFERENCE.test(latest) && dependence < MEDIA_DEPENDENCE) return kinds;
  if (IMAGE_WORDS.test(latest)) kinds.add('image');
  if (AUDIO_WORDS.test(latest)) kinds.add('audio');
  return kinds;
}

function earlierTexts(turns: readonly Turn[], latest: number): string[] {
  return turns.slice(0, latest).flatMap((turn) => (turn.role === 'system' ? [] : [turn.text]));
}

function mediaEdits(carriers: readonly Turn[], relevance: readonly number[], named: Set<MediaKind>) {
  const edits = new Map<number, TurnEdit>();
  let removedParts = 0;
  carriers.forEach((turn, i) => {
    if ((relevance[i] ?? 0) >= MEDIA_TURN_RELEVANCE) return;
    const removed = turn.media.filter((media) => !named.has(media.kind));
    if (removed.length === 0) return;
    edits.set(turn.index, {
      placeholders: new Map(removed.map((media) => [media.part, PLACEHOLDERS[media.kind]])),
    });
    removedParts += removed.length;
  });
  return { edits, removedParts };
}

/**
 * Replaces the images and audio of earlier turns that the latest user message does not need by a text
 * placeholder. Returns a new request (the input is not mutated) and how many parts were removed.
 */
export async function optimizeMedia<R extends JsonObject>(
  request: R,
  kind: RequestKind,
  scorer: Scorer,
): Promise<{ request: R; report: MediaReport }> {
  const { turns } = viewConversation(request, kind);
  const latest = latestUserPosition(turns);
  const latestText = turns[latest]?.text ?? '';
  const carriers = turns
    .slice(0, Math.max(latest, 0))
    .filter((turn) => turn.role !== 'system' && turn.media.length > 0);
  if (carriers.length === 0) return { request: { ...request }, report: { removedParts: 0 } };
  const dependence = await scorer.contextDependence(latestText, earlierTexts(turns, latest));
  const relevance =
    dependence >= MEDIA_DEPENDENCE
      ? await scorer.relevance(
          latestText,
          carriers.map((turn) => turn.text),
        )
      : [];
  const { edits, removedParts } = mediaEdits(carriers, relevance, namedKinds(latestText, dependence));
  return { request: applyConversationEdits(request, kind, edits), report: { removedParts } };
}
