import { type Vocabulary, vocabulary } from './text-view.js';

/** Cues of the complexity judgement read as whole words or as patterns, in four languages. */

/** Greetings, thanks and farewells: a message of at most six words that opens with one is small talk. */
export const SMALL_TALK =
  /^(hi|hello|hey|yo|good (morning|afternoon|evening|night)|thanks|thank you|thx|cheers|bye|lol|haha|ok|okay|cool|nice|great|awesome|how are you|bonjour|bonsoir|salut|merci|hola|gracias|buenos días|buenas|guten (morgen|tag|abend)|hallo|danke|tschüss)(?=[\s,.!?¡¿]|$)/;

/** Subject matter that makes a task harder, one vocabulary per subject; each distinct term counts. */
export const HARD_SUBJECTS: readonly Vocabulary[] = [
  'distributed|geo-replicated|replicated|replication',
  'concurrent|concurrency|lock-free|atomic|memory ordering|race condition|deadlock|mpmc|spsc',
  'consensus|raft|paxos|network partition|consistency',
  'scalable|scalability|scaling|latency|throughput|per second',
  'compiler|parser|tokenizer|ast|grammar|interpreter|bytecode|virtual machine|garbage collector',
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

/** Words that add a requirement to a task. */
export const CONSTRAINTS: readonly Vocabulary[] = [
  'must|require|required|requirement|requirements|constraint|constraints',
  'without|at most|at least|no more than',
  'budget|deadline',
  'identical|guarantee|guarantees|guaranteed|thread-safe|better than',
  'doit|doivent|sans|au moins|au plus|debe|deben|sin|al menos|como máximo|muss|müssen|ohne|mindestens|höchstens',
  'budget|presupuesto|délai|plazo|garantir|garantiza|garantizar|garantieren|disponibilité|disponibilidad|' +
    'verfügbarkeit',
].map(vocabulary);

/** The opening of a factual question: what, who, when, how many … */
export const LOOKUP =
  /^(what|who|when|where|which|is|are|does|do|how (many|much|old|long|far|do you say|do you spell)|quel|quelle|quels|quelles|qui|quand|où|combien|comment (on )?dit|¿?(qué|quién|cuál|cuándo|dónde|cuántos|cuántas|cuánto)|was|wer|wann|wo|welche|welcher|welches|wie (viele|viel|spät|alt|lange|heißt))(?=[\s,.!?']|$)/;

/** Quantities of scale: `50k requests per second`, `4 TB`, `2 Mio.`, `p99`. */
export const SCALE =
  /\b\d+(?:[.,]\d+)?\s*(?:k|m|mio\.?|million|millions|millones|millionen|billion|milliards?|tb|gb|pb|rps|qps)(?![a-zà-ÿ])|\bp9\d\b|\bper second\b|\/s(?:ec)?\b|par seconde|por segundo|pro sekunde/gi;
