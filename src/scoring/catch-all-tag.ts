import { latinWords } from './guess-language.js';

/**
 * Whether a tag describes every request rather than a subject: "any request at all", "everything else",
 * "all other requests", "general purpose: anything", "tout le reste", "cualquier otra pregunta",
 * "alles andere". Such a tag matches whatever no subject tag matches; it never outbids one.
 *
 * Read from its words: at least one word of universality (any, all, every…, else, other, general,
 * default) and nothing that names a subject, once function words and the generic nouns of a request
 * (request, question, task, thing, topic…) are set aside.
 */

const UNIVERSAL = new Set(
  (
    'any anything anyone all everything every everyday general generic default other others else misc ' +
    'miscellaneous whatever fallback catch-all catchall rest remaining remainder various ' +
    "tout tous toute toutes autre autres général générale généraux n'importe quoi reste divers diverses " +
    'cualquier cualquiera todo toda todos todas otro otra otros otras resto varios varias ' +
    'alles alle allem jede jeder jedes jegliche andere anderes anderen sonstiges sonstige allgemein allgemeine ' +
    'rest übrige übriges beliebig beliebige'
  ).split(' '),
);

const GENERIC = new Set(
  (
    'request requests question questions query queries task tasks prompt prompts thing things stuff topic ' +
    'topics subject subjects purpose purposes help message messages case cases input inputs use uses chat ' +
    'chats conversation conversations kind kinds type types sort matter matters problem problems ask asks ' +
    'demande demandes question sujet sujets tâche tâches chose choses cas aide ' +
    'pregunta preguntas solicitud solicitudes petición peticiones tema temas tarea tareas cosa cosas caso ayuda ' +
    'anfrage anfragen frage fragen thema themen aufgabe aufgaben sache sachen fall fälle hilfe'
  ).split(' '),
);

const FUNCTION_WORDS = new Set(
  (
    'a an the at of for to in on with and or else that which is are be can may not no just ' +
    'le la les de des du un une et ou à au aux en pour que qui est sur ' +
    'el los las un una y o en para por que con al ' +
    'der die das den dem des ein eine und oder in im für mit zu was ist'
  ).split(' '),
);

/** Whether the tag (its name and description) stands for any request. */
export function isCatchAllTag(name: string, description: string): boolean {
  let universal = false;
  for (const word of latinWords(`${name} ${description}`)) {
    if (UNIVERSAL.has(word)) universal = true;
    else if (!GENERIC.has(word) && !FUNCTION_WORDS.has(word)) return false;
  }
  return universal;
}
