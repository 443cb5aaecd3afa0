import { isCatchAllTag } from './catch-all-tag.js';
import type { Scorer } from './scorer.js';

/** A routing tag as the operator describes it. */
export interface TagDescription {
  name: string;
  description: string;
}

export interface TagMatch<Tag extends TagDescription> {
  tag: Tag;
  /** Relevance of the tag's name and description to the prompt, 0..1. */
  relevance: number;
}

/**
 * The least relevance for a subject tag to count as a match, chosen on the dev set `eval/tag-intent.json`
 * with the local scorer, whose tag relevance reads meaning (fields of meaning in four languages) as well as
 * shared words: a prompt with nothing in common with a tag scores 0, one stray word of the tag's field
 * about 0.15–0.3, a prompt clearly in the tag's field 0.4 and more. `npm run eval` prints the accuracy
 * for every threshold again. A model scorer (embeddings) has its own scale and may want its own threshold,
 * passed to `matchTag`.
 */
export const DEFAULT_TAG_MATCH_THRESHOLD = 0.1;

/**
 * The tag whose description fits the prompt best, if it fits at least `threshold`; otherwise the first
 * catch-all tag ("any request at all", "everything else": see `catch-all-tag.ts`), if there is one;
 * `null` when neither (the request then needs an explicit `model`). The tag's name is scored with its
 * description, since operators name tags after their intent ("coding", "billing"). Ties go to the tag
 * listed first. A catch-all tag never outbids a subject tag that fits.
 */
export async function matchTag<Tag extends TagDescription>(
  prompt: string,
  tags: readonly Tag[],
  scorer: Pick<Scorer, 'intentRelevance'>,
  threshold: number = DEFAULT_TAG_MATCH_THRESHOLD,
): Promise<TagMatch<Tag> | null> {
  if (tags.length === 0) return null;
  const catchAll = tags.map((tag) => isCatchAllTag(tag.name, tag.description));
  const subjects = tags.filter((_, index) => !catchAll[index]);
  const scores =
    subjects.length > 0
      ? await scorer.intentRelevance(
          prompt,
          subjects.map((tag) => `${tag.name}: ${tag.description}`),
        )
      : [];
  let best: TagMatch<Tag> | null = null;
  for (const [index, tag] of subjects.entries()) {
    const relevance = scores[index] ?? 0;
    if (relevance >= threshold && (best === null || relevance > best.relevance)) best = { tag, relevance };
  }
  if (best) return best;
  const fallback = tags.find((_, index) => catchAll[index]);
  return fallback ? { tag: fallback, relevance: threshold } : null;
}
