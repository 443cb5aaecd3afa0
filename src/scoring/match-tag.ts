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
 * (66 prompts, four tag sets of four) with the local scorer. Accuracy is flat (0.77) for thresholds from
 * 0.05 to 0.15 and drops above: prompts that fit no tag share no word with any description and score 0,
 * true matches through one shared word score 0.35–0.5, and a match through a related form only
 * ("install" → "installation") scores about 0.16. 0.1 is the middle of the flat region: it keeps those
 * weak matches and still rejects a prompt with nothing in common. `npm run eval` prints the region again.
 * A model scorer (embeddings) has its own scale and may want its own threshold, passed to `matchTag`.
 */
export const DEFAULT_TAG_MATCH_THRESHOLD = 0.1;

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
