/**
 * The wording that tells whether a message leans on the conversation before it. Each cue is a pattern over
 * the lower-cased message and a weight: the probability, roughly, that a message showing this cue alone
 * cannot be answered without the earlier turns. Cues are about language, not topics: "you sent", "the
 * second one", "still fails", "and in Go?" refer back whatever the subject.
 */

export interface Cue {
  pattern: RegExp;
  weight: number;
}

const ARTIFACT =
  'answer|response|reply|code|query|solution|example|suggestion|version|script|function|draft|list|' +
  'explanation|email|text|post|message|table|regex|snippet|proposal|approach|recommendation|option|summary|' +
  'output|fix|change|edit|implementation|sql|command|advice|plan|story|poem|translation|point|step|file|' +
  'paragraph|section|sentence|line|result|idea|item|question|one|method|endpoint|part|link|column|name|choice';

/** Explicit references to what was said or produced before: on their own enough to need the history. */
export const STRONG_CUES: readonly Cue[] = [
  {
    pattern:
      /\byou (just |already |previously |earlier |originally )?(sent|said|wrote|gave|suggested|mentioned|recommended|showed|shown|provided|proposed|shared|listed|described|made|meant|created|generated|posted|used|did|told|came up with|picked|chose)\b/,
    weight: 0.9,
  },
  {
    pattern: /\b((why|how|where) did you|what did you (mean|do|change|use|pick|choose|get|say))\b/,
    weight: 0.85,
  },
  {
    pattern: new RegExp(
      `\\byour (last |previous |first |second |earlier |original |new |updated |latest )?(${ARTIFACT})s?\\b`,
    ),
    weight: 0.85,
  },
  {
    pattern: new RegExp(
      `\\b(above|previous|preceding|prior|earlier|last|original|latter|former) (${ARTIFACT})s?\\b`,
    ),
    weight: 0.8,
  },
  {
    pattern: new RegExp(
      `\\bthe (first|second|third|fourth|fifth|other|next|final) (${ARTIFACT}|alternative|bullet|draft)s?\\b`,
    ),
    weight: 0.85,
  },
  {
    pattern:
      /\b(the above|as above|as before|like before|from before|so far|earlier|previously|our (discussion|conversation|chat)|this conversation|we (discussed|talked about|agreed))\b/,
    weight: 0.8,
  },
  {
    pattern:
      /\b(still (gets?|getting|got|fails?|failing|broken|see|seeing|happens?|crash(es)?|doesn'?t|does not|don'?t|not|returns?|throws?|shows?)|(didn'?t|doesn'?t|did not|does not|isn'?t|is not|not) work(ing|ed|s)?|(that|it) work(ed|s)|same (error|issue|problem|result|output|exception|thing))\b/,
    weight: 0.8,
  },
  { pattern: /\b(the same|do the same|same as|same but|same for)\b(?! time)/, weight: 0.7 },
  {
    pattern:
      /^(continue|go on|keep going|go ahead|proceed|carry on|yes|yeah|yep|yup|sure|ok|okay|sounds good|do it|please do|yes please|let'?s do (it|that)|that works|agreed|exactly|nope|no)([\s,.!]+(do it|go ahead|please|proceed|continue|thanks|thank you|sure))*[\s,.!]*$/,
    weight: 0.9,
  },
  {
    // French, Spanish, German: what you gave me, your code, still the same error, does not work
    pattern:
      /\b(que tu (m'|nous )?as (donné|envoyé|écrit|proposé|suggéré|montré|utilisé|fait)|tu as (utilisé|écrit|dit|proposé|fait)|(ton|ta|tes) (code|script|exemple|texte|message|mail|réponse|version|fonction|requête|solution|liste|proposition)|toujours (la même erreur|le même problème)|(ne )?(marche|fonctionne) (toujours |plus )?pas|que me (diste|enviaste|escribiste|sugeriste|pasaste|mostraste)|(tu|tus) (código|respuesta|versión|función|consulta|solución|texto|correo|ejemplo)|sigue sin funcionar|no funciona|(el )?mismo error|lo anterior|(den|das|die|was) du (mir )?(geschickt|geschrieben|gegeben|vorgeschlagen|gezeigt)|(dein|deine|deinen|deinem) (code|skript|vorschlag|antwort|version|funktion|abfrage|lösung|text|beispiel)|funktioniert (immer noch |leider |noch )?nicht|geht (leider |immer noch )?nicht|immer noch|(denselben|derselbe|den gleichen|der gleiche) fehler)/,
    weight: 0.85,
  },
];

/** Hints that a message continues the conversation, weaker and more often found in standalone text. */
export const WEAK_CUES: readonly Cue[] = [
  {
    pattern: /^(and|but|so|or|also|then|plus|now|what about|how about|what if|why not|how come|really)\b/,
    weight: 0.6,
  },
  {
    pattern:
      /\b(it|them|they|these|those)\b(?=\s*([.?!,;:)]|$)|\s(to|into|in|for|with|on|from|as|so|but|and|or|again|too|instead|shorter|longer|more|less|better|work|works|worked|working|do|does|did|is|was|would|will|should|could|can|take|takes|mean|means|apply|applies|fail|fails|failed|return|returns|run|runs|handle|handles|up|out|look|looks|sound|sounds|at|by)\b)/,
    weight: 0.6,
  },
  {
    pattern:
      /\b(that|this)\b(?=\s*([.?!,;)]|$)|\s(to|into|in|for|with|on|from|as|again|too|instead|shorter|longer|more|less|better|work|works|worked|mean|means|apply|applies|take|takes)\b)/,
    weight: 0.6,
  },
  { pattern: /\b(again|once more|instead|as well)\b/, weight: 0.5 },
  { pattern: /\btoo[.!?]*$/, weight: 0.4 },
  { pattern: /\balso\b/, weight: 0.35 },
  { pattern: /\b(more|another|else)\b/, weight: 0.3 },
  {
    pattern:
      /\bthe (tone|results?|intro|introduction|opening|ending|conclusion|title|headline|subject line|code|function|script|query|regex|email|letter|post|story|text|draft|list|table|output|answer|tests?|error|bug|loop|variable|file|paragraph|sentence|wording|style|format|formula|numbers|total|command|snippet|response|diagram|chart|plan|outline|summary|translation|examples?)\b/,
    weight: 0.3,
  },
  { pattern: /\b(line|step|option|point|item) \d+\b/, weight: 0.4 },
  {
    pattern:
      /\b(that|this|those|these) (pattern|regex|code|query|script|function|email|letter|story|list|table|plan|budget|recipe|answer|version|approach|error|command|snippet|draft|paragraph|sentence|design|one)s?\b/,
    weight: 0.45,
  },
  {
    pattern: /^(make|rewrite|turn|change|rephrase|shorten|put|translate) (it|this|that|them)\b/,
    weight: 0.55,
  },
  // French, Spanish, German openers and pronouns that point back
  {
    pattern:
      /^(et|mais|donc|ou|aussi|alors|puis|y|pero|entonces|o|también|und|aber|oder|auch|dann|jetzt|maintenant|ahora)\b/,
    weight: 0.6,
  },
  {
    pattern:
      /-(la|le|les|lui)\b|\b(ça|cela|celui-ci|celle-ci)\b|\b(la|lo|las|los) (adapto|cambio|pongo|hago|adapta|cambia|pones|haces)\b|\b(hacerlo|hacerla|ponerlo|ponerla|cambiarlo|cambiarla|traducirlo|mejorarlo|acortarlo)\b|\b(eso|esto)\b(?=\s*([.?!,]|$))|\b(das|es|sie|ihn)\b(?=\s*([.?!,]|$)|\s(auch|noch|bitte|etwas|freundlicher|kürzer|länger|besser|nicht)\b)|\b(davon|dazu|damit|darüber)\b/,
    weight: 0.6,
  },
  {
    pattern:
      /\b(aussi|encore|también|otra vez|de nuevo|auch|nochmal|noch einmal|stattdessen|plutôt|en cambio)\b/,
    weight: 0.35,
  },
];

/**
 * A short imperative that edits something it does not show ("make it shorter", "add error handling"):
 * checked only on messages of a few words.
 */
export const EDIT_COMMAND =
  /^(make|rewrite|shorten|expand|simplify|rephrase|reword|translate|convert|summari[sz]e|explain|fix|add|remove|delete|change|update|refactor|improve|format|put|turn|apply|undo|redo|polish|tweak|adjust|modify|optimi[sz]e|extend|split|combine|sort|reorder|elaborate|clarify|try|retry|repeat)\b/;

/**
 * Words that may turn away from what came before, anywhere in the message ("by the way", "forget that"):
 * only strong back-references survive them (see `contextDependence`).
 */
export const TOPIC_SHIFT =
  /\b(new (topic|question|problem|subject|task|request)|unrelated|off[- ]topic|(different|separate|another) (question|topic|subject|matter)|switch(ing)? (gears|topics?|subjects?)|chang(e|ing) (of|the) (topic|subject)|forget (that|this|it|about (that|this|it|the above|everything)|everything|the above|what i said)|on (an)?other note|completely (different|separate|unrelated)|(let'?s )?start (fresh|afresh)|moving on|by the way|btw)\b/;

/** Short openers that may stand before an announced shift ("ok, so, unrelated: …", "sinon, rien à voir"). */
const LEAD_IN =
  '(?:(?:ok(?:ay)?|so|also|and|anyway|anyways|btw|by the way|oh|alright|right|now|hey|hi|quick|one more thing|' +
  'sinon|bon|alors|au fait|bueno|vale|oye|por cierto|übrigens|also|ach|noch was|ps)[\\s,.:;!—–-]+){0,3}';

/** Announcements of a new subject, in English, French, Spanish and German. */
const SHIFT_MARKER = [
  // English
  '(?:(?:a |one )?(?:quick |small |random |totally |completely |entirely )?(?:new|different|separate|unrelated|side) (?:topic|question|subject|task|request)s?)',
  '(?:(?:totally |completely |entirely )?unrelated(?: to (?:that|this|the above|the earlier stuff|what we discussed|my question|the previous \\w+))?(?=[\\s,.:;!?—–-]|$))',
  '(?:off[- ]topic)',
  '(?:switch(?:ing)? (?:gears|topics?|subjects?)|chang(?:e|ing) (?:of |the )?(?:topic|subject))',
  '(?:on (?:an(?:other)?|a (?:separate|different|totally different|unrelated)|a side) note)',
  '(?:(?:totally|completely|entirely) (?:different|separate|unrelated)(?: \\w+)?)',
  '(?:something (?:else|different) entirely|something completely different)',
  '(?:another thing entirely)',
  '(?:moving on to (?:something|another))',
  "(?:(?:let'?s )?start (?:fresh|afresh|over))",
  // French
  '(?:changement de (?:sujet|thème)|chang(?:eons|er|e) de (?:sujet|thème)|(?:autre|nouveau) (?:sujet|thème)|nouvelle question)',
  '(?:(?:question )?sans (?:aucun )?rapport|rien à voir|hors[- ]sujet|tout autre chose|passons à (?:autre chose|un autre sujet))',
  // Spanish
  '(?:cambi(?:ando|o|emos|ar) de tema|otro tema|tema (?:nuevo|distinto|diferente)|(?:nueva|otra) pregunta (?:distinta|diferente|que no tiene nada que ver)|pregunta (?:nueva|distinta|diferente))',
  '(?:(?:una )?pregunta (?:distinta|diferente)|sin relación|nada que ver|otra cosa distinta|(?:una )?pregunta aparte)',
  // German
  '(?:(?:ein )?(?:anderes|neues) thema|themawechsel|ganz andere frage|neue frage|mal (?:was|etwas) (?:ganz )?anderes|(?:was|etwas) ganz anderes|unabhängig davon|nichts damit zu tun)',
].join('|');

/**
 * A message that opens by announcing a new subject ("Unrelated question, but …", "Switching topics: …",
 * "Changement de sujet : …", "Cambiando de tema, …", "Anderes Thema: …"): whatever back-reference words
 * follow ("it", "also", "the same"), they belong to the new subject.
 */
export const ANNOUNCED_SHIFT = new RegExp(`^${LEAD_IN}(?:${SHIFT_MARKER})`);

/** A message that is only a greeting, a thanks or a goodbye. */
export const GREETING_ONLY =
  /^(hi|hello|hey|hiya|yo|good (morning|afternoon|evening|night)|thanks?( you)?( so much| a lot)?|thx|ty|cheers|bye|goodbye|see you|merci( beaucoup)?|bonjour|salut|gracias|muchas gracias|hola|danke( schön| dir)?|hallo|tschüss)([\s,]+(there|all|everyone|again|so much|a lot|good (morning|afternoon|evening)|that'?s (all|it)( for (today|now))?))*[\s!.,:)]*$/;

/** A message that opens with a greeting: usually the start of a new thread. */
export const GREETING_OPENER = /^(hi|hello|hey|hiya|good (morning|afternoon|evening))\b/;

/** A polite opening that does not change what the message refers to ("can you …", "please …"). */
export const POLITE_OPENING =
  /^((can|could|would|will) (you|we)( please)?|please|pls|kindly|i'd like you to|i want you to|i need you to)\b[,\s]*/;

/** A bare interjection before the message proper ("great, now …"), itself a sign of continuing. */
export const CONTINUING_INTERJECTION =
  /^(great|ok|okay|cool|nice|perfect|awesome|alright|hmm+|wait|well|thanks|thank you)\b[,!.]*\s+/;

/** A question that names its own subject ("what's 15% of 240?"), as opposed to a fragment ("and python?"). */
export const COMPLETE_QUESTION =
  /^(what|who|where|when|which|how|is|are|can|could|do|does|did|should|will|would)('s|'re|\s+\S+\s+\S+)/;
