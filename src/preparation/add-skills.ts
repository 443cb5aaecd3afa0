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
export async function addSkills(
  registry: SkillRegistry,
  kind: RequestKind,
  body: JsonObject,
  settings: GatewaySettings['skills'],
  prompt: () => string,
  scorer: RequestScorer,
): Promise<{ body: JsonObject; skills: string[] }> {
  if (!settings) return { body, skills: [] };
  const selection = await selectSkills(registry, settings, prompt(), scorer);
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
