import { clipText } from './clip-text.js';
import {
  countMentioned,
  countTerms,
  mentions,
  type TextView,
  textView,
  type Vocabulary,
  vocabulary,
} from './text-view.js';

/**
 * How hard a prompt is to answer well, 0..1, from what the text asks for rather than what it is about.
 *
 * Each feature found is independent evidence of difficulty, combined as `1 - 0.95 × Π(1 - weight)`, so a
 * score starts at 0.05, rises quickly with the first signs and saturates:
 *
 * | feature                                                                    | weight                    |
 * | -------------------------------------------------------------------------- | ------------------------- |
 * | length: `0.5 × (log2(words) - 3) / 6`, clamped (8 words 0, 512 words 0.5)   | 0 … 0.5                   |
 * | a task that produces something (write, explain, design, "how do I")         | 0.35, less under 12 words |
 * | deep reasoning (prove, derive, step by step, design a …, walk me through)  | 0.55 each                 |
 * | analysis (analyse, compare, trade-offs, evaluate, optimise, justify)       | 0.3 each                  |
 * | hard subject matter (distributed, lock-free, compiler, theorem …), per term | 0.15 each, up to 5        |
 * | a code block / code-like text                                               | 0.25 / 0.12               |
 * | mathematical notation                                                       | 0.3                       |
 * | parts of the request (clauses, list items), beyond the first               | 0.08 each, up to 6        |
 * | constraints (must, without, at most, budget, edge cases …)                 | 0.08 each, up to 3        |
 *
 * A prompt longer than 8,000 characters is read by its head and tail, its length estimated from them.
 * Routine requests (a task, some length, a code block) stay in the middle band; it takes reasoning, analysis
 * or hard subject matter on top to pass 0.75. Quoted or pasted material (code blocks, quotations) counts
 * for length and code, not for what is asked.
 * Small talk scores 0.05; a short factual question ("what is / who wrote / how many …", under 11 words,
 * with no reasoning cue) is halved. Bands as a three-model tag uses them: below 0.25 the last model,
 * above 0.75 the first (`index = round((1 - score) × (n - 1))`).
 */
export function complexity(prompt: string): number {
  const clipped = clipText(prompt);
  const text = clipped.toLowerCase().replace(/[’‘]/g, "'").trim();
  const clippedWords = text.split(/\s+/).filter((word) => word.length > 0).length;
  const words = Math.round(clippedWords * (prompt.length / Math.max(1, clipped.length)));
  if (words === 0 || (words <= 6 && SMALL_TALK.test(text))) return 0.05;
  const request = stripQuoted(text);
  const view = textView(request);
  const deep = countMentioned(view, DEEP);
  const analytical = countMentioned(view, ANALYTICAL);
  const weights = [
    0.5 * clamp01((Math.log2(words) - 3) / 6),
    isTask(view, request) ? 0.35 * Math.min(1, words / 12) : 0,
    ...repeat(0.55, deep),
    ...repeat(0.3, analytical),
    ...repeat(0.15, Math.min(5, countTerms(view, HARD_SUBJECTS))),
    codeWeight(prompt),
    MATH_NOTATION.test(text) ? 0.3 : 0,
    ...repeat(0.08, Math.min(6, requestParts(request) - 1)),
    ...repeat(0.08, Math.min(3, countMentioned(view, CONSTRAINTS))),
  ];
  let score = 1 - 0.95 * weights.reduce((remaining, weight) => remaining * (1 - weight), 1);
  if (words <= 10 && deep + analytical === 0 && LOOKUP.test(text)) score /= 2;
  return Math.round(clamp01(score) * 1000) / 1000;
}

const SMALL_TALK =
  /^(hi|hello|hey|yo|good (morning|afternoon|evening|night)|thanks|thank you|thx|cheers|bye|lol|haha|ok|okay|cool|nice|great|awesome|how are you|bonjour|bonsoir|salut|merci|hola|gracias|buenos días|buenas|guten (morgen|tag|abend)|hallo|danke|tschüss)(?=[\s,.!?¡¿]|$)/;

const TASK = vocabulary(
  'write|draft|compose|create|build|generate|implement|develop|design|produce|set up|configure|outline|plan|' +
    'summarize|summarise|explain|describe|rewrite|convert|refactor|review|debug|give me a|give me an|' +
    'give me some|how do i|how can i|how should i|how would i|how do we|how can we|what are the|' +
    'difference between|pros and cons|' +
    // French
    'écris|écrire|explique-moi|donne-moi|montre-moi|dis-moi|rédige|rédiger|crée|créer|génère|implémente|développe|conçois|concevoir|explique|expliquer|' +
    'résume|résumer|décris|réécris|convertis|corrige|compare|comment puis-je|comment faire|' +
    'avantages et inconvénients|différence entre|' +
    // Spanish
    'escribe|escribir|redacta|redactar|crea|crear|genera|implementa|desarrolla|diseña|explica|explícame|' +
    'explicar|resume|resumir|describe|reescribe|convierte|corrige|cómo puedo|cómo hago|ventajas y desventajas|' +
    'diferencia entre|dame|' +
    // German
    'schreib|schreibe|schreiben|erstelle|erstellen|generiere|implementiere|entwickle|entwirf|erkläre|' +
    'erklären|fasse|beschreibe|formuliere|konvertiere|korrigiere|wie kann ich|unterschied zwischen|' +
    'vor- und nachteile',
);
const WHY_QUESTION = /^why (does|do|is|are|did)\b/;

const isTask = (view: TextView, request: string): boolean =>
  mentions(view, TASK) || WHY_QUESTION.test(request);

const DEEP: readonly Vocabulary[] = [
  'prove|proving|proof|proofs|démontre|démontrer|démonstration|preuve|demuestra|demostrar|demostración|' +
    'beweise|beweisen|beweis',
  'derive|deriving|derivation|dérive|dériver|dérivation|deriva|derivar|derivación|herleiten|leite',
  'architect|architecture|arquitectura|architektur',
  'step by step|step-by-step|walk me through|étape par étape|pas à pas|paso a paso|schritt für schritt',
  'design a|design an|design the|design our|conçois|concevoir|diseña|diseñar|entwirf|entwerfen|entwickle einen|' +
    'entwickle eine',
  'by induction|generalise|generalize|par récurrence|généralise|généraliser|por inducción|generaliza|' +
    'generalizar|durch induktion|verallgemeinere',
  'systematic|systematically|systématique|systématiquement|sistemático|sistemáticamente|systematisch',
].map(vocabulary);

const ANALYTICAL: readonly Vocabulary[] = [
  'analyse|analyze|analysing|analyzing|analysis',
  'compare|comparing|comparison',
  'trade-off|trade-offs|tradeoff|tradeoffs',
  'evaluate|evaluating|evaluation',
  'optimise|optimize|optimising|optimizing|optimisation|optimization',
  'justify|justification',
  'investigate|investigation|diagnose|diagnosis',
  'discuss|critique|assess',
  'failure mode|failure modes|edge case|edge cases|risk|risks',
  'analyse|analyser|analysez|analiza|analizar|análisis|analysiere|analysieren|analyse',
  'compare|comparer|comparaison|compara|comparar|comparación|vergleiche|vergleichen|vergleich',
  'compromis|compromisos|kompromisse|abwägung|abwägungen',
  'évalue|évaluer|évaluation|evalúa|evaluar|evaluación|bewerte|bewerten|bewertung',
  'optimise|optimiser|optimisation|optimiza|optimizar|optimización|optimiere|optimieren|optimierung',
  'justifie|justifier|justifica|justificar|begründe|begründen',
  'diagnostic|diagnostique|diagnóstico|diagnose|untersuche|risques|riesgos|risiken|modes de défaillance|' +
    'modos de fallo|fehlerfälle',
].map(vocabulary);

const HARD_SUBJECTS: readonly Vocabulary[] = [
  'distributed|geo-replicated|replicated|replication',
  'concurrent|concurrency|lock-free|atomic|memory ordering|race condition|deadlock',
  'consensus|raft|paxos|network partition|consistency',
  'scalable|scalability|scaling|latency|throughput|per second',
  'compiler|parser|tokenizer|ast|grammar',
  'algorithm|complexity|asymptotic|np-hard|graph|shortest path|shortest paths',
  'theorem|lemma|integral|pde|eigenvalue|eigenvalues|undecidable|prime|primes|correctness',
  'cryptography|cryptographic|encryption|threat model',
  'multi-tenant|microservice|microservices|monolith|monolithic|dependency injection|migration',
  'schema|isolation|invariant|invariants|memory leak|leaks memory|heap',
  'unit economics|market sizing|financial projection|valuation|portfolio|pricing model',
  'numerically|stochastic|probabilistic|least squares|regression',
  // French, Spanish, German
  'distribué|distribuée|distribuido|distribuida|verteilt|verteilte|verteilten|geo-repliziert|geo-replizierte',
  'concurrence|concurrencia|nebenläufigkeit|lock-frei|lock-freien|interblocage|race conditions|speicherordnung',
  'consensus|consenso|konsens|partition réseau|partitions réseau|partición de red|netzwerkpartition|' +
    'netzwerkpartitionen|cohérence|consistencia|konsistenz',
  'montée en charge|escalabilidad|skalierbarkeit|latence|latencia|latenz|débit',
  'compilateur|compilador|analizador sintáctico|analyseur syntaxique|grammaire|gramática|grammatik',
  'algorithme|algoritmo|algorithmus|complexité|complejidad|komplexität|zeitkomplexität|graphe|grafo|graphen|' +
    'kürzeste wege|plus court chemin',
  'théorème|teorema|satz|intégrale|integral|irrationnel|irracional|irrational|primo|primos|premier|premiers|' +
    'primzahl|primzahlen|stetige|continue|continua',
  'cryptographie|criptografía|kryptographie|chiffrement|cifrado|verschlüsselung|modèle de menace',
  'multi-tenant|microservicios|microservices|monolithe|monolito|monolith|migration|migración|migrations|' +
    'migrationen',
  'schéma|esquema|isolation|aislamiento|invariant|invariante|fuite mémoire|fuga de memoria|speicherleck|heap',
  'modèle financier|modelo financiero|finanzmodell|rentabilité|rentabilidad|rentabilität|valorisation',
  'moindres carrés|mínimos cuadrados|kleinste quadrate|régression|regresión|stochastique|estocástico',
].map(vocabulary);

const CONSTRAINTS: readonly Vocabulary[] = [
  'must|require|required|requirement|requirements|constraint|constraints',
  'without|at most|at least|no more than',
  'budget|deadline',
  'identical|guarantee|guarantees|guaranteed|thread-safe|better than',
  'doit|doivent|sans|au moins|au plus|debe|deben|sin|al menos|como máximo|muss|müssen|ohne|mindestens|höchstens',
  'budget|presupuesto|délai|plazo|garantir|garantiza|garantizar|garantieren|disponibilité|disponibilidad|' +
    'verfügbarkeit',
].map(vocabulary);

const LOOKUP =
  /^(what|who|when|where|which|is|are|does|do|how (many|much|old|long|far|do you say|do you spell)|quel|quelle|quels|quelles|qui|quand|où|combien|comment (on )?dit|¿?(qué|quién|cuál|cuándo|dónde|cuántos|cuántas|cuánto)|was|wer|wann|wo|welche|welcher|welches|wie (viele|viel|spät|alt|lange|heißt))(?=[\s,.!?']|$)/;

const MATH_NOTATION =
  /[∫∑∏√∂∞≤≥≠±π]|\\frac|\^\{|\b[a-z]\^[\dn]|\b\d+[a-z]\s*[+-]\s*\d|\bo\([^)]*n[^)]*\)|\bdx\b|\bd\/dx\b/;

function codeWeight(prompt: string): number {
  if (prompt.includes('```') || prompt.split('\n').filter((line) => /^\s{2,}\S/.test(line)).length >= 3) {
    return 0.25;
  }
  return /\w\([^)]*\)|=>|[{};]\s*$|`[^`]+`/m.test(prompt) ? 0.12 : 0;
}

/** Clauses and list items of the request: sentences, semicolons, commas, "and then …", numbered items. */
function requestParts(request: string): number {
  const separators = request.match(/[.?!;:](\s+|$)(?=\S)|,\s|\band then\b|^\s*(\d+[.)]|[-*•])\s/gm);
  return 1 + (separators?.length ?? 0);
}

/** Drops code blocks and quotations: material handed over, not part of what is asked. */
function stripQuoted(text: string): string {
  return text
    .replace(/```[\s\S]*?(```|$)/g, ' ')
    .replace(/(^|\s)'[^']{12,}'/g, ' ')
    .replace(/"[^"]{12,}"/g, ' ');
}

const repeat = (weight: number, times: number): number[] =>
  Array.from({ length: Math.max(0, times) }, () => weight);

const clamp01 = (value: number): number => Math.min(1, Math.max(0, value));
