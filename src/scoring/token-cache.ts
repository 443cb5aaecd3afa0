import { tokenize } from './tokenize.js';

/** Turns a text into its content words (see `tokenize`). */
export type Tokenizer = (text: string) => readonly string[];

/**
 * `tokenize` with a bounded memory of recent texts, least recently used first out. Tool, skill and tag
 * descriptions repeat from request to request, and one request scores the same prompt several times
 * (tools, skills, tags, history); the cache makes those repeats free. Owned by whoever creates it (a
 * scorer, or a scorer factory for the whole gateway), never shared through module state.
 */
export function createTokenCache(maxEntries = 2000): Tokenizer {
  const entries = new Map<string, readonly string[]>();
  return (text) => {
    const cached = entries.get(text);
    if (cached) {
      entries.delete(text);
      entries.set(text, cached);
      return cached;
    }
    const tokens = tokenize(text);
    entries.set(text, tokens);
    if (entries.size > maxEntries) {
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
    return tokens;
  };
}
