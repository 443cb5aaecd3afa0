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
 * The least relevance for a tag to count as a match, chosen on the labelled set `eval/tag-intent.json`
 * with the local scorer: accuracy is flat between 0.15 and 0.3 and falls on either side (below, prompts
 * that fit no tag get one through a single common word; above, true matches that share one distinctive
 * word with a four-tag set, about 0.47, start to be lost). 0.2 sits in the flat region.
 * A model scorer (embeddings) may want its own threshold, passed to `matchTag`.
 */
export const DEFAULT_TAG_MATCH_THRESHOLD = 0.2;

/**
 * The tag whose description fits the prompt best, if it fits at least `threshold`; `null` when none does
 * (the request then needs an explicit `model`). The tag's name is scored with its description, since
 * operators name tags after their intent ("coding", "billing"). Ties go to the tag listed first.
 */
export async function matchTag<Tag extends TagDescription>(
  prompt: string,
  tags: readonly Tag[],
  scorer: Pick<Scorer, 'relevance'>,
  threshold: number = DEFAULT_TAG_MATCH_THRESHOLD,
): Promise<TagMatch<Tag> | null> {
  if (tags.length === 0) return null;
  const scores = await scorer.relevance(
    prompt,
    tags.map((tag) => `${tag.name}: ${tag.description}`),
  );
  let best: TagMatch<Tag> | null = null;
  for (const [index, tag] of tags.entries()) {
    const relevance = scores[index] ?? 0;
    if (relevance >= threshold && (best === null || relevance > best.relevance)) best = { tag, relevance };
  }
  return best;
}
