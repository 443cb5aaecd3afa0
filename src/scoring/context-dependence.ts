import { clipText } from './clip-text.js';
import {
  ANNOUNCED_SHIFT,
  COMPLETE_QUESTION,
  CONTINUING_INTERJECTION,
  type Cue,
  EDIT_COMMAND,
  GREETING_ONLY,
  GREETING_OPENER,
  POLITE_OPENING,
  STRONG_CUES,
  TOPIC_SHIFT,
  WEAK_CUES,
} from './dependence-cues.js';
import { lexicalRelevance } from './relevance.js';
import type { Tokenizer } from './token-cache.js';
import { tokenize } from './tokenize.js';

/**
 * How much the latest user message depends on the earlier conversation, 0..1, from wording and overlap:
 *
 * - **Strong cues** (explicit back-references: "you sent", "the second one", "still fails", "go ahead")
 *   and **weak cues** (anaphora, "and …?" openers, "again", "instead", a few-word edit command, a fragment
 *   such as "python version?", words shared with recent turns by BM25) are combined as independent
 *   evidence: `evidence = 1 - Π(1 - weight)`.
 * - A definite article before a word of the last two turns ("the incident", "die Effektgröße") is a weak
 *   cue (0.5): the message names something the conversation introduced.
 * - Cues anchored at the start of the message ("and …?", a short edit command) are read after a polite
 *   opening ("can you …", "please …") and a bare interjection ("great, now …", itself a weak cue).
 * - Weak cues count less in a message that carries its own material (a code block, a quotation, text
 *   pasted after a colon: ×0.35) or is a fully specified request (nine content words or more: ×0.6), and
 *   less after a greeting ("Hello, can you …": ×0.5).
 * - `score = 0.1 + 0.9 × evidence`; so 0.1 means "no sign of dependence" and 1.0 "certainly depends".
 * - A message that opens by announcing a new subject ("Unrelated question, but …", "Switching topics: …",
 *   "Changement de sujet : …", "Cambiando de tema, …", "Anderes Thema: …") scores 0.1 whatever words
 *   follow: its "it", "also" or "the same" belong to the new subject.
 * - Shift words elsewhere ("by the way", "forget that", "moving on") keep only the strong cues, squared
 *   (`0.1 + 0.8 × strong²`): "btw, the fix you suggested still fails" still depends. A bare greeting or
 *   thanks scores 0.1; no earlier turn, 0.
 *
 * Examples: "fix the error in the second file you sent" → 1.0; "new topic: write a haiku" → 0.1.
 */
export function contextDependence(
  latest: string,
  earlier: readonly string[],
  tokenizer: Tokenizer = tokenize,
): number {
  if (earlier.length === 0) return 0;
  const message = clipText(latest);
  const text = normalise(message);
  if (text.length === 0 || GREETING_ONLY.test(text) || ANNOUNCED_SHIFT.test(text)) return 0.1;
  const strong = combine(matchingWeights(STRONG_CUES, text));
  if (TOPIC_SHIFT.test(text)) return round(0.1 + 0.8 * strong * strong);
  const evidence = weakEvidence(text, recentOverlap(message, earlier, tokenizer));
  if (namesRecentThing(text, earlier, tokenizer)) evidence.push(0.5);
  const weak = combine(evidence) * dampening(message, text, tokenizer);
  return round(0.1 + 0.9 * combine([strong, weak]));
}

/** Whether the message says it starts something new ("new topic", "unrelated", "anderes Thema" …). */
export function announcesTopicShift(message: string): boolean {
  const text = normalise(clipText(message));
  return ANNOUNCED_SHIFT.test(text) || TOPIC_SHIFT.test(text);
}

function normalise(message: string): string {
  return message.toLowerCase().replace(/[’‘]/g, "'").replace(/\s+/g, ' ').trim();
}

function matchingWeights(cues: readonly Cue[], text: string): number[] {
  return cues.filter((cue) => cue.pattern.test(text)).map((cue) => cue.weight);
}

/** Noisy-OR: the chance that at least one independent piece of evidence is right. */
function combine(weights: readonly number[]): number {
  return 1 - weights.reduce((remaining, weight) => remaining * (1 - weight), 1);
}

function weakEvidence(text: string, overlap: number): number[] {
  const interjection = CONTINUING_INTERJECTION.exec(text);
  const afterInterjection = interjection ? text.slice(interjection[0].length) : text;
  const body = afterInterjection.replace(POLITE_OPENING, '');
  const weights = matchingWeights(WEAK_CUES, body);
  if (interjection) weights.push(0.35);
  const words = body.split(' ').length;
  if (words <= 4 && !COMPLETE_QUESTION.test(body)) weights.push(0.6);
  if (words <= 7 && EDIT_COMMAND.test(body)) weights.push(0.45);
  weights.push(0.5 * overlap);
  return weights;
}

/** A definite article before a word of the last two turns: "the image", "l'incident", "die Effektgröße". */
const DEFINITE =
  /(?:^|[\s(])(?:the|this|that|these|those|le|la|les|l'|ce|cette|el|los|las|este|esta|ese|esa|der|die|das|den|dem|dieser|diese|dieses)\s?([^\s.,;:!?()]{3,})/g;

function namesRecentThing(text: string, earlier: readonly string[], tokenizer: Tokenizer): boolean {
  const recent = new Set(tokenizer(earlier.slice(-2).join('\n')));
  if (recent.size === 0) return false;
  const named = Array.from(text.matchAll(DEFINITE), (match) => match[1] ?? '').join(' ');
  return named.length > 0 && tokenize(named).some((token) => recent.has(token));
}

/** The best BM25 relevance of the message to one of the earlier turns, older turns discounted. */
function recentOverlap(latest: string, earlier: readonly string[], tokenizer: Tokenizer): number {
  const scores = lexicalRelevance(latest, earlier, tokenizer);
  let best = 0;
  scores.forEach((score, index) => {
    const age = Math.max(0, earlier.length - 2 - index);
    best = Math.max(best, score * 0.85 ** age);
  });
  return best;
}

/** How much a message carries its own context, as a factor on the weak evidence. */
function dampening(latest: string, text: string, tokenizer: Tokenizer): number {
  let factor = 1;
  const pasted =
    latest.includes('```') ||
    /(^|[\s:(])["'“‘][^"'“”‘’]{20,}["'”’]([\s.,;:!?)]|$)/.test(latest) ||
    /:\s*(?:[^\s:]+\s+){11}/.test(latest) ||
    latest.split('\n').length >= 4;
  if (pasted) factor *= 0.35;
  else if (tokenizer(latest).length >= 9) factor *= 0.6;
  if (GREETING_OPENER.test(text)) factor *= 0.5;
  return factor;
}

const round = (value: number): number => Math.round(Math.min(1, Math.max(0, value)) * 1000) / 1000;
