import type { RequestKind } from '../codecs/request-kind.js';
import { invalidGatewaySettings } from '../errors/gateway-error.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import type { JsonObject } from '../json/json.js';
import type { RequestScorer } from '../scoring/scorer.js';
import { injectSkills, skillsSystemText } from '../skills/inject-skills.js';
import { selectSkills } from '../skills/select-skills.js';
import type { SkillRegistry } from '../skills/skill-registry.js';

/**
 * The skills step: the listed skills (with `enableAutoSearch`, only those relevant to the prompt) go into the
 * system prompt; an unknown id is 400 INVALID_GATEWAY_SETTINGS. Returns the request and the skills added.
 */
export function addSkills(
  registry: SkillRegistry,
  kind: RequestKind,
  body: JsonObject,
  settings: GatewaySettings['skills'],
  prompt: () => string,
  scorer: RequestScorer,
): WithSkills | Promise<WithSkills> {
  // Without skills asked for, answered at once.
  if (!settings) return { body, skills: [] };
  return addSelectedSkills(registry, kind, body, settings, prompt(), scorer);
}

/** The request with the skills added, and their ids. */
export interface WithSkills {
  body: JsonObject;
  skills: string[];
}

async function addSelectedSkills(
  registry: SkillRegistry,
  kind: RequestKind,
  body: JsonObject,
  settings: NonNullable<GatewaySettings['skills']>,
  promptText: string,
  scorer: RequestScorer,
): Promise<WithSkills> {
  const selection = await selectSkills(registry, settings, promptText, scorer);
  if (selection.unknown.length > 0) {
    throw invalidGatewaySettings(
      `gateway.skills.skillIds names unknown skills: ${namedIds(selection.unknown)}.`,
      'gateway.skills.skillIds',
    );
  }
  const skills = selection.skills.map((skill) => skill.id);
  if (selection.skills.length === 0) return { body, skills };
  return { body: injectSkills(body, kind, skillsSystemText(selection.skills)), skills };
}

/** Unknown ids an error names at most, and the characters of each it quotes (a skill id has at most 64). */
const MAX_NAMED_IDS = 10;
const MAX_NAMED_ID_CHARS = 80;

/**
 * The first unknown ids, each cut short, and how many more: a request may list thousands of ids of any
 * length, and the error (returned and kept in the record) must not repeat megabytes of them.
 */
function namedIds(unknown: readonly string[]): string {
  const named = unknown
    .slice(0, MAX_NAMED_IDS)
    .map((id) => (id.length > MAX_NAMED_ID_CHARS ? `${id.slice(0, MAX_NAMED_ID_CHARS)}…` : id));
  const more = unknown.length - named.length;
  return more > 0 ? `${named.join(', ')} and ${more} more` : named.join(', ');
}
