import { clipText } from './clip-text.js';

/**
 * Whether a prompt asks for a picture to be produced, 0..1. Mentioning, analysing or coding around images
 * is not asking for one, so the detector looks for a *request*, clause by clause:
 *
 * - an imperative at the start of a clause (after "please", "can you", "I'd like you to", "… and"):
 *   a making verb with a picture noun as its object ("generate an image of", "create a logo for",
 *   "design an app icon"), or a drawing verb with any concrete object ("draw a cat", "sketch a cabin",
 *   "illustrate a page where …");
 * - "show me a picture/photo of …", or a wish for a picture ("I'd like a cartoon of …", "give me an image").
 *
 * It does not count: verbs that are not imperatives ("diffusion models generate images", "a script that
 * generates thumbnails", "how do I draw a circle on a canvas", "I want to generate images on my GPU");
 * picture nouns used as modifiers ("image upload component", "image URL", "logo brief", "logo ideas");
 * idioms ("draw conclusions", "draw a card", "sketch out", "picture this", "the big picture"); negation
 * ("don't draw", "stop generating images", "without drawing"); and requests for words ("in words", "no
 * images", "text only", "in bullet points"). Diagrams, charts and maps count only when drawn or asked for
 * as an image ("as a PNG").
 *
 * Scores: 0.9 for a making verb with a picture noun, 0.85 for a drawing verb or "show me a picture", 0.8
 * for a wish, 0.7 for "show me what … looks like"; 0.15 when pictures are only mentioned; 0.05 otherwise.
 */
export function imageIntent(prompt: string): number {
  const text = clipText(prompt).toLowerCase().replace(/[’‘]/g, "'");
  if (WORDS_ONLY.test(text)) return MENTION.test(text) ? 0.15 : 0.05;
  let best = 0;
  for (const clause of text.split(/[.!?;]+(?=\s|$)|\n+|:\s/)) {
    best = Math.max(best, clauseIntent(clause.trim()));
  }
  if (best > 0) return best;
  return MENTION.test(text) ? 0.15 : 0.05;
}

const PICTURE_NOUN =
  '(?:images?|pictures?|pics?|photos?|photographs?|illustrations?|drawings?|paintings?|sketch(?:es)?|logos?|' +
  'icons?|posters?|wallpapers?|banners?|artworks?|portraits?|avatars?|stickers?|cartoons?|comics?|' +
  'infographics?|renderings?|renders?|watercolou?rs?|murals?|emojis?|memes?|headshots?|mascots?|graphics?|' +
  'flyers?|(?:greeting|birthday|holiday|christmas|wedding|thank-you) cards?)';

const SCHEMATIC_NOUN = '(?:diagrams?|charts?|graphs?|maps?|flowcharts?|mock-?ups?|scenes?)';

/** Words after a picture noun that make it a modifier: "image upload component", "logo brief". */
const MODIFIED =
  /^\s*(processing|upload\w*|urls?|links?|librar(y|ies)|files?|formats?|sizes?|tags?|components?|gallery|editor|viewer|dataset|data|generat(or|ion)|models?|classif\w*|recognition|compression|optimi[sz]ation|loader|carousel|resizer|brief|set|folder|path|src|alt|caption|metadata|pipeline|api|endpoint|service|filters?|field|column|table|storage|bucket|cdn|cache|placeholder|slider|picker|crop\w*|button|grid|layout|template|font|palettes?|ideas?|concepts?|prompts?|descriptions?|text|names?|library|settings)\b/;

/** What may open a clause before its verb: politeness, "can you", "I'd like you to", connectives. */
const REQUEST_PREFIX =
  "^(?:(?:please|pls|now|also|just|then|and|so|ok|okay|hey|hi|next)[,!]?\\s+)*(?:(?:can|could|would|will) you(?: please)?\\s+|(?:i want|i'd like|i would like|i need) you to\\s+|(?:help me|let's|go ahead and|try to|you could)\\s+)?(?:please\\s+)?(?:\\w+\\s+and\\s+)?";

const MAKING_VERB =
  '(?:generate|create|make|design|produce|render|craft|paint|illustrate|draw|sketch|depict)';
const DRAWING_VERB = '(?:draw|sketch|paint)';
const DETERMINER =
  '(?:(?:me|us)\\s+)?(?:a|an|some|one|two|three|four|five|\\d+|a few|another|my|our|the)?\\s*';
const VARIANTS =
  '(?:(?:variations?|versions?|variants?|options?|examples?|styles?) of (?:a|an|the|my|our)?\\s*)?';
/** Adjectives and noun modifiers before the head noun; a preposition ends the noun phrase. */
const MODIFIERS = '(?:(?!(?:for|of|with|in|on|to|from|that|which|about|as|and)\\b)[^\\s,]+,?\\s+){0,5}?';

const MAKING = new RegExp(
  `${REQUEST_PREFIX}${MAKING_VERB}\\s+${DETERMINER}${VARIANTS}${MODIFIERS}${PICTURE_NOUN}\\b(.*)$`,
);
const DRAWING = new RegExp(
  `${REQUEST_PREFIX}(?:${DRAWING_VERB}\\s+(?:(?:me|us)\\s+)?(?:a|an|some|the|\\d+)|illustrate\\s+(?:(?:me|us)\\s+)?(?:a|an|some|\\d+))\\s+(\\S+)`,
);
const SCHEMATIC = new RegExp(
  `${REQUEST_PREFIX}${MAKING_VERB}\\s+${DETERMINER}${MODIFIERS}${SCHEMATIC_NOUN}\\b.*\\bas (?:an? )?(?:png|jpe?g|image|picture)\\b`,
);
const SHOW_ME =
  /\bshow (?:me|us) (?:a|an|some|\d+)\s+(?:\w+\s+){0,2}?(?:pictures?|images?|photos?|drawings?|illustrations?)\b/;
const SHOW_LOOKS = /\bshow (me|us) what .+ looks? like\b/;
const WISH = new RegExp(
  `\\b(?:i want|i'd like|i would like|i need|can i (?:have|get)|could i (?:have|get)|give me|get me|send me)\\s+(?:a|an|some|\\d+)\\s+${MODIFIERS}${PICTURE_NOUN}\\b(.*)$`,
);

/**
 * Objects of "draw" or "illustrate" that are not pictures: "draw conclusions", "draw a card", "draw a line
 * between", "illustrate a point".
 */
const NOT_DRAWN =
  /^(conclusions?|comparisons?|distinctions?|parallels?|attention|inspiration|cards?|blanks?|crowds?|straws?|lots?|breath|lines?|salary|power|water|blood|swords?|weapons?|points?|concepts?|ideas?|differences?|examples?|principles?)\b/;

const NEGATED_CLAUSE =
  /^(?:please\s+)?(?:don'?t|do not|never|stop|no need to|without|not|instead of|rather than)\b/;

const WORDS_ONLY =
  /\b(in words|text only|text-only|in text|no images?|no pictures?|without (an? )?(images?|pictures?|drawing)|in bullet points|just describe|describe (it )?in words|don'?t (draw|generate|create|make) (an? )?(image|picture|anything))\b/;

const MENTION = new RegExp(`\\b${PICTURE_NOUN}\\b`);

function clauseIntent(clause: string): number {
  if (clause.length === 0 || NEGATED_CLAUSE.test(clause)) return 0;
  const making = MAKING.exec(clause);
  if (making && !MODIFIED.test(making[1] ?? '')) return 0.9;
  if (SCHEMATIC.test(clause)) return 0.9;
  const drawing = DRAWING.exec(clause);
  if (drawing && !NOT_DRAWN.test(drawing[1] ?? '') && !/\bsketch out\b/.test(clause)) return 0.85;
  if (SHOW_ME.test(clause)) return 0.85;
  const wish = WISH.exec(clause);
  if (wish && !MODIFIED.test(wish[1] ?? '')) return 0.8;
  if (SHOW_LOOKS.test(clause)) return 0.7;
  return 0;
}
