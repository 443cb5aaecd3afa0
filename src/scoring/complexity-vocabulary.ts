import type { Language } from './stemmers.js';

/**
 * What a request asks for, by kind of ask, in English, French, Spanish and German. Terms are written in
 * a few of their forms (infinitive, imperative, noun) and matched by their Snowball stem, so conjugations
 * meet (`analyse`/`analysez`/`analyser`, `demuestra`/`demuestre`, `vergleiche`/`vergleichen`); terms of
 * two or three words match consecutive words.
 */
export type AskKind =
  /** A proof or a derivation: the answer is a chain of reasoning. */
  | 'proof'
  /** Designing a system, an architecture, a plan of many steps. */
  | 'design'
  /** Weighing, comparing, judging, estimating, optimising. */
  | 'analysis'
  /** Finding the cause of a behaviour, or reasoning one step at a time. */
  | 'diagnosis'
  /** Producing or explaining something routine: write, explain, summarise, translate, fix. */
  | 'produce'
  /** A deliverable of many lines: a script, a query, an email, a plan, a test. */
  | 'artefact'
  /** A deliverable of one line: a word, a synonym, a command, an abbreviation. */
  | 'oneLiner';

export const ASK_KINDS: readonly AskKind[] = [
  'proof',
  'design',
  'analysis',
  'diagnosis',
  'produce',
  'artefact',
  'oneLiner',
];

export const ASK_VOCABULARY: Readonly<Record<AskKind, Readonly<Record<Language, string>>>> = {
  proof: {
    en: 'prove|proof|derive|derivation|show that|show why|by induction|formally|lemma',
    fr: 'prouve|prouver|preuve|démontre|démontrez|démontrer|démonstration|montre que|montrez que|dérive|dériver|par récurrence',
    es: 'demuestra|demuestre|demostrar|demostración|prueba que|deriva|derivar|derivación|por inducción',
    de: 'beweise|beweisen|beweis|zeige dass|zeigen sie dass|herleiten|leite|herleitung|induktion',
  },
  design: {
    en: 'design a|design an|design the|design our|architect|architecture|how would you build|how would you design|how would you architect|plan the migration|migration plan|phased plan',
    fr: 'conçois|concevez|concevoir|conception|architecture|plan de migration|comment construirais-tu',
    es: 'diseña|diseñe|diseñar|diseño de|arquitectura|plan de migración|qué estrategia seguirías|cómo construirías',
    de: 'entwirf|entwerfen|entwurf|architektur|migrationsplan|wie würdest du|wie würden sie',
  },
  analysis: {
    en: 'analyse|analyze|analysis|compare|comparison|evaluate|evaluation|assess|justify|recommend|estimate|trade-off|trade-offs|tradeoffs|optimise|optimize|critique|prioritise|prioritize|model the|sanity-check|weigh',
    fr: 'analyse|analysez|analyser|compare|comparez|comparer|évalue|évaluez|évaluer|justifie|justifiez|justifier|recommande|recommander|estime|estimer|compromis|optimise|optimiser|priorise|prioriser',
    es: 'analiza|analice|analizar|análisis|compara|compare|comparar|evalúa|evaluar|justifica|justificar|recomienda|recomendar|estima|estimar|compromisos|optimiza|optimizar|prioriza|priorizar',
    de: 'analysiere|analysieren|analyse|vergleiche|vergleichen|bewerte|bewerten|begründe|begründen|empfiehl|empfehlen|schätze|abschätzen|abwägen|abwägung|optimiere|optimieren|priorisiere|priorisieren',
  },
  diagnosis: {
    en: "what's wrong|what is wrong|root cause|find why|find out why|explain why|explain exactly why|figure out why|what breaks|what happens during|what happens if|systematic|systematically|step by step|walk me through|in detail|go deep|diagnose|investigate|investigation",
    fr: "qu'est-ce qui ne va pas|cause racine|trouve pourquoi|explique pourquoi|pas à pas|étape par étape|en détail|en détaillant|systématique|systématiquement|diagnostique|diagnostiquer",
    es: 'qué está mal|qué falla|causa raíz|encuentra por qué|explica por qué|paso a paso|en detalle|detalla|sistemático|sistemáticamente|diagnostica|diagnosticar',
    de: 'was ist falsch|woran liegt|ursache|finde heraus|erkläre warum|schritt für schritt|im detail|detailliert|systematisch|diagnostiziere|diagnostizieren|untersuche',
  },
  produce: {
    en: 'write|draft|compose|create|build|make|generate|implement|develop|produce|set up|configure|outline|plan|summarize|summarise|explain|describe|rewrite|convert|refactor|review|debug|fix|find|list|translate|turn|reply|proofread|propose|suggest|add|solve|give me|how do i|how can i|how should i|how would i|how do we|difference between|tl;dr',
    fr: 'écris|écrire|rédige|rédiger|crée|créer|génère|générer|implémente|implémenter|développe|explique|expliquer|explique-moi|résume|résumer|décris|décrire|réécris|convertis|corrige|corriger|trouve|traduis|traduire|propose|proposer|donne-moi|montre-moi|fais|comment puis-je|comment faire|différence entre',
    es: 'escribe|escribir|redacta|redactar|crea|crear|genera|implementa|desarrolla|explica|explícame|explicar|resume|resumir|describe|reescribe|convierte|corrige|encuentra|traduce|propón|proponer|dame|haz|cómo puedo|cómo hago|diferencia entre',
    de: 'schreib|schreibe|schreiben|erstelle|erstellen|generiere|implementiere|entwickle|erkläre|erklär|erklären|fasse|zusammenfassen|beschreibe|formuliere|übersetze|konvertiere|korrigiere|finde|schlag|schlage|vorschlagen|mach|wie kann ich|wie lese ich|wie schreibe ich|unterschied zwischen',
  },
  artefact: {
    en: 'script|function|query|email|e-mail|letter|cover letter|plan|file|config|test|tests|post|essay|form|component|class|program|report|summary|description|routine|invitation|toast|speech|workflow|dockerfile|regex|schema|template|yaml|note|outline|notes|bullets',
    fr: 'script|fonction|requête|e-mail|mail|courriel|lettre|plan|fichier|test|tests|article|formulaire|composant|classe|programme|rapport|résumé|description|discours|modèle|profil',
    es: 'script|función|consulta|correo|carta|plan|archivo|prueba|pruebas|publicación|formulario|componente|clase|programa|informe|resumen|descripción|discurso|plantilla',
    de: 'skript|funktion|abfrage|e-mail|mail|brief|anschreiben|kündigung|plan|datei|test|tests|beitrag|formular|komponente|klasse|programm|bericht|zusammenfassung|beschreibung|rede|vorlage',
  },
  oneLiner: {
    en: 'synonym|antonym|opposite|command|acronym|abbreviation|stand for|capital|population|spell|rhymes|fun fact|joke',
    fr: 'synonyme|antonyme|contraire|commande|abréviation|acronyme|capitale|population|blague',
    es: 'sinónimo|antónimo|contrario|comando|abreviatura|siglas|capital|población|chiste',
    de: 'synonym|gegenteil|befehl|abkürzung|hauptstadt|einwohner|witz',
  },
};
