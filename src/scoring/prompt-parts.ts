/**
 * A prompt split into what is asked and the material handed over with it (pasted code, logs, an email,
 * an article). What is asked decides how hard the prompt is; the material mostly adds length.
 */
export interface PromptParts {
  /** The user's own words: the ask, its constraints and context. */
  request: string;
  /** The paragraph that asks (the first or last short one), or the whole request. */
  ask: string;
  /** Code blocks, long quotations and pasted paragraphs. */
  material: string;
  /** A code block, or lines that read as code. */
  hasCode: boolean;
  /** Words of the request, of the material and of the ask. */
  requestWords: number;
  materialWords: number;
  askWords: number;
}

const FENCED = /```[\s\S]*?(```|$)/g;
// No quote's opening mark inside it: a run of opening marks must not make the search quadratic.
const QUOTED = /(^|\s)'[^'\n]{12,}'|"[^"]{12,}"|«[^«»]{12,}»|„[^„“]{12,}“|“[^“”]{12,}”/g;
/** Lines of code, logs, tables or headers rather than prose. */
const CODE_LINE =
  /^\s{2,}\S|^\t|[{};]\s*$|=>|^\s*(def|class|function|import|return|select|from|where|join|group by|order by|\$|>>>|at|file|from:|subject:|to:)\s|\s{3}\S|^\s*[-|]{3,}/i;

/** Words of a text: runs of characters other than spaces, tabs and line breaks (one pass, no allocation). */
export function countWords(text: string): number {
  let words = 0;
  let inWord = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    const space = code === 32 || (code >= 9 && code <= 13) || code === 160;
    if (!space && !inWord) words += 1;
    inWord = !space;
  }
  return words;
}

/** Whether most lines of a paragraph read as code, logs or a table. */
function looksPasted(paragraph: string): boolean {
  const lines = paragraph.split('\n').filter((line) => line.trim().length > 0);
  if (lines.length < 2) return false;
  return lines.filter((line) => CODE_LINE.test(line)).length * 2 >= lines.length;
}

/**
 * Splits a prompt (lower-case or not) into request and material. Code blocks and quotations of 12 or more
 * characters are material. Of the paragraphs (blank-line separated), when the first or the last one is a
 * short ask (60 words at most), each other paragraph that is twice as long as the ask, or reads as code
 * or logs, is material: "When is the meeting?" followed by a pasted email asks for a lookup, not a
 * 150-word answer.
 */
export function splitPrompt(text: string): PromptParts {
  const material: string[] = [];
  let materialWords = 0;
  const handOver = (block: string) => {
    material.push(block);
    materialWords += countWords(block);
  };
  let hasCode = text.includes('```');
  const unfenced = text.replace(FENCED, (block) => {
    handOver(block);
    return '\n\n';
  });
  const paragraphs = unfenced
    .replace(QUOTED, (quote) => {
      handOver(quote);
      return ' ';
    })
    .split(/\n\s*\n/)
    .filter((paragraph) => paragraph.trim().length > 0);
  const sizes = paragraphs.map(countWords);
  const askIndex = (sizes[0] ?? 0) <= 60 ? 0 : (sizes.at(-1) ?? 0) <= 60 ? paragraphs.length - 1 : -1;
  const askWords = Math.max(1, sizes[askIndex] ?? 0);
  const request: string[] = [];
  let requestWords = 0;
  paragraphs.forEach((paragraph, index) => {
    const pasted = looksPasted(paragraph);
    hasCode ||= pasted && paragraph.split('\n').length >= 3;
    const size = sizes[index] ?? 0;
    if (index !== askIndex && askIndex >= 0 && (pasted || size >= 2 * askWords)) {
      material.push(paragraph);
      materialWords += size;
    } else {
      request.push(paragraph);
      requestWords += size;
    }
  });
  const joined = request.join('\n\n');
  return {
    request: joined,
    ask: paragraphs[askIndex] ?? joined,
    material: material.join('\n\n'),
    hasCode,
    requestWords,
    materialWords,
    askWords: askIndex >= 0 ? askWords : requestWords,
  };
}
