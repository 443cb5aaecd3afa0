import type { TextTokenCounter } from '../../optimizations/count-tokens.js';

/** What a stream generated so far: tokens already counted, and the text not yet counted. */
export interface StreamedTextSoFar {
  tokens: number;
  text: string;
}

/** The generated text of one stream, held as a token count plus a bounded uncounted rest. */
export interface StreamedTally {
  /** Adds a part's generated text; a promise when the pending text was past the fold size and is being counted. */
  add(text: string): undefined | Promise<void>;
  soFar(): StreamedTextSoFar;
}

/** Uncounted text a stream holds at most (characters) before it is counted and let go. */
export const FOLD_CHARS = 16_384;
/** How far back from the end a space may be for the count to stop there. */
const WORD_CHARS = 256;

/**
 * Keeps what a stream generated for billing it if it is cut short, in bounded memory: the text is held until
 * it passes `foldChars`, then counted with the tokenizer (up to its last space, so that no word is cut) and
 * dropped. Without this a stream held all it ever streamed, megabytes per never-reading client. Most answers
 * stay below the fold size and are never tokenized unless cut short.
 */
export function streamedTally(
  loadCounter: () => Promise<TextTokenCounter>,
  foldChars = FOLD_CHARS,
): StreamedTally {
  let pending: string[] = [];
  let pendingChars = 0;
  let tokens = 0;
  let folding: Promise<void> | undefined;

  const fold = async (): Promise<void> => {
    const count = await loadCounter();
    const text = pending.join('');
    // At the last space when it is near the end (no word is cut), else all of it (a token or so more).
    const space = text.lastIndexOf(' ');
    const cut = space > 0 && space >= text.length - WORD_CHARS ? space : text.length;
    tokens += count(text.slice(0, cut));
    const rest = text.slice(cut);
    pending = rest === '' ? [] : [rest];
    pendingChars = rest.length;
  };

  return {
    add(text) {
      if (text === '') return undefined;
      pending.push(text);
      pendingChars += text.length;
      if (pendingChars < foldChars || folding) return folding;
      folding = fold().finally(() => {
        folding = undefined;
      });
      return folding;
    },
    soFar: () => ({ tokens, text: pending.join('') }),
  };
}
