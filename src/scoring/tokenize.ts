/**
 * Words for lexical matching: identifiers split into words (`get_weather`, `getWeather`, `get-weather` all
 * give `get weather`), lower-cased, stop words and single characters removed (`customer's` → `customer`),
 * common abbreviations expanded (`PR` → `pull request`), British spellings met with American ones
 * (`colour`/`color`), and a light suffix stemmer so that plurals and -ing/-ed/-ly forms meet their base
 * word (`files`/`file`, `coding`/`code`, `created`/`create`, `monthly`/`month`). Deliberately small: a
 * stemmer that is too eager merges unrelated words, and every false match costs precision.
 */

/** English function words and conversational filler that say nothing about what a text is about. */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about after all also am an and any are as at be because been before being between both but by can ' +
    'cant could did didnt do does doesnt doing done dont down each either else etc even ever every few for ' +
    'from further get got had has have having he her here hers him his how however i id if im in into is ' +
    'isnt it its ive just let lets like me might mine more most much must my myself need new no nor not ' +
    'now of off oh ok okay on once one only or other our ours out over own per please quite rather really ' +
    'same see shall she should so some something such than thank thanks that thats the their theirs them ' +
    'then there theres these they this those though through thus to too under until up upon us use very ' +
    'want was way we were what whats when where whether which while who whom whose why will with within ' +
    'without wont would yes yet you youd youll your youre yours yourself hi hello hey tell give make show ' +
    'know help go going using used uses don doesn didn isn aren wasn weren won couldn shouldn wouldn'
  ).split(' '),
);

/** Whether the word has a vowel (y included): a stem without one is not a word (`str` of `string`). */
function hasVowel(word: string): boolean {
  for (let index = 0; index < word.length; index += 1) {
    if ('aeiouy'.includes(word.charAt(index))) return true;
  }
  return false;
}

/** `running` → `run`, `stopped` → `stop`; keeps doubled l, s and z (`fall`, `pass`, `buzz`) and vowels. */
function undouble(word: string): string {
  const last = word.at(-1) ?? '';
  if (last !== '' && word.at(-2) === last && !'lszaeiou'.includes(last)) return word.slice(0, -1);
  return word;
}

/** Removes a plural `s`/`es`/`ies` (the word ends in `s`). */
function stripPlural(word: string): string {
  const before = word.charAt(word.length - 2);
  if (before === 'e' && word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (before === 's') return word.endsWith('sses') ? word.slice(0, -2) : word;
  if (before === 'u' || before === 'i') return word;
  return word.slice(0, -1);
}

/** Removes -ing, -ed or -ly when a plausible stem (three letters or more, with a vowel) remains. */
function stripVerbEnding(word: string): string {
  const last = word.charAt(word.length - 1);
  if (last === 'g' && word.endsWith('ing')) return plausibleStem(word, 3, word);
  if (last === 'd' && word.charAt(word.length - 2) === 'e') {
    if (word.endsWith('ied') && word.length > 4) return `${word.slice(0, -3)}y`;
    return word.endsWith('eed') ? word : plausibleStem(word, 2, word);
  }
  const adverb = last === 'y' && word.endsWith('ly') && !word.endsWith('ply') && word.length >= 6;
  return adverb ? word.slice(0, -2) : word;
}

function plausibleStem(word: string, suffixLength: number, fallback: string): string {
  const stem = word.slice(0, -suffixLength);
  return stem.length >= 3 && hasVowel(stem) ? undouble(stem) : fallback;
}

/**
 * British spellings meet American ones, applied alike to both sides so no pair of words is split:
 * `colour` → `color`, `optimise` → `optimize`, `analyse` → `analyze`, `centre` → `center`.
 */
function americanise(word: string): string {
  if (word.length < 6) return word;
  if (word.endsWith('our') || word.endsWith('ours')) return word.replace(/our(s?)$/, 'or$1');
  if (word.endsWith('tre') || word.endsWith('bre')) return `${word.slice(0, -2)}er`;
  if (!word.includes('is') && !word.includes('ys')) return word;
  return word.replace(/([iy])s(e|ed|es|ing|ation|ations|er|ers)$/, '$1z$2');
}

const isDigit = (char: string): boolean => char >= '0' && char <= '9';

/** A light suffix stemmer (plural, -ing, -ed, -ly, final -e) after spelling normalisation; exported for tests. */
export function stem(word: string): string {
  if (word.length <= 3 || isDigit(word.charAt(word.length - 1))) return word;
  let result = americanise(word);
  if (result.charAt(result.length - 1) === 's') result = stripPlural(result);
  result = stripVerbEnding(result);
  if (
    result.length > 3 &&
    result.charAt(result.length - 1) === 'e' &&
    result.charAt(result.length - 2) !== 'e'
  ) {
    result = result.slice(0, -1);
  }
  return result;
}

/** Common abbreviations, so that "PR" meets "pull request" and "repo" meets "repository". */
const ABBREVIATIONS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries({
    pr: 'pull request',
    prs: 'pull requests',
    repo: 'repository',
    repos: 'repositories',
    db: 'database',
    dbs: 'databases',
    doc: 'document',
    docs: 'documentation',
    k8s: 'kubernetes',
    env: 'environment',
    config: 'configuration',
    auth: 'authentication',
    msg: 'message',
    dir: 'directory',
    stats: 'statistics',
    img: 'image',
    pic: 'picture',
    pics: 'pictures',
    js: 'javascript',
    ts: 'typescript',
    py: 'python',
    ui: 'user interface',
    ml: 'machine learning',
  }).map(([abbreviation, words]) => [abbreviation, words.split(' ').map(stem)]),
);

/** Words with a fixed reading: stop words (nothing) and abbreviations (their expansion). One look-up per word. */
const FIXED: ReadonlyMap<string, readonly string[]> = new Map([
  ...[...STOP_WORDS].map((word): [string, readonly string[]] => [word, []]),
  ...ABBREVIATIONS,
]);

function pushWord(word: string, tokens: string[]): void {
  if (word.length < 2) return;
  const fixed = FIXED.get(word);
  if (fixed) {
    for (const token of fixed) tokens.push(token);
    return;
  }
  const stemmed = stem(word);
  if (stemmed === word || !STOP_WORDS.has(stemmed)) tokens.push(stemmed);
}

/**
 * One word of an identifier or of prose: an upper-case run not followed by lower case (`HTTP`, `EC2`), a
 * capitalised or lower-case word with its digits (`Weather`, `k8s`), or a run of another script. So
 * `parseHTTPResponse` gives `parse HTTP Response`, `get_weather` gives `get weather`, `don't` gives `don`.
 */
const WORD =
  /[A-Z0-9\u00c0-\u00d6\u00d8-\u00de]+(?![a-z\u00df-\u00f6\u00f8-\u00ff])|[A-Z\u00c0-\u00d6\u00d8-\u00de]?[a-z0-9\u00df-\u00f6\u00f8-\u024f]+|[\u0370-\u1fff\u2c00-\ud7ff\uf900-\ufdff]+/g;

/**
 * Content words of a text, stemmed, in order (repeats kept: term frequency matters to BM25).
 * One regular-expression pass over the text; used on every request.
 */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const word of text.match(WORD) ?? []) pushWord(word.toLowerCase(), tokens);
  return tokens;
}
