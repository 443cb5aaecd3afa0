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
      `gateway.skills.skillIds names unknown skills: ${selection.unknown.join(', ')}.`,
      'gateway.skills.skillIds',
    );
  }
  const skills = selection.skills.map((skill) => skill.id);
  if (selection.skills.length === 0) return { body, skills };
  return { body: injectSkills(body, kind, skillsSystemText(selection.skills)), skills };
}
