import type { Scorer } from '../scoring/scorer.js';
import type { Skill } from './skill.js';

/**
 * Which skills a request gets (`gateway.skills`). Pure apart from the scorer call.
 *
 * - Every id of `skillIds` must name a loaded skill; the ids that do not are returned in `unknown` (in the
 *   order given, once each), and the caller rejects the request (400 `INVALID_GATEWAY_SETTINGS`). Then no
 *   skill is selected and the scorer is not asked, since the request will not run.
 * - `enableAutoSearch: false`: every listed skill, in the order listed (a repeated id counts once).
 * - `enableAutoSearch: true`: only the listed skills whose `name` + `description` scores at least
 *   `threshold` (default `AUTO_SEARCH_THRESHOLD`) for relevance to the prompt; when none does, none is
 *   added. The order stays that of `skillIds`.
 */

/** Least relevance (0..1) a skill's name and description must have to the prompt under auto search. */
export const AUTO_SEARCH_THRESHOLD = 0.3;

/** Where skills are looked up: the registry (or any map by id), or a plain list. */
export type SkillSource = { get(id: string): Skill | undefined } | readonly Skill[];

export interface SkillSettings {
  skillIds: readonly string[];
  enableAutoSearch: boolean;
}

export interface SkillSelection {
  /** Skills to inject, in `skillIds` order. */
  skills: Skill[];
  /** Listed ids that name no loaded skill. */
  unknown: string[];
}

const lookup = (source: SkillSource, id: string): Skill | undefined =>
  'get' in source ? source.get(id) : source.find((skill) => skill.id === id);

/** The text a skill is matched on under auto search. */
export const skillSearchText = (skill: Skill): string => `${skill.name}\n${skill.description}`;

/**
 * Selects the skills of `settings` for a request whose prompt (typically the latest user message) is
 * `prompt`; see the module comment for the rules.
 */
export async function selectSkills(
  source: SkillSource,
  settings: SkillSettings,
  prompt: string,
  scorer: Pick<Scorer, 'relevance'>,
  threshold: number = AUTO_SEARCH_THRESHOLD,
): Promise<SkillSelection> {
  const ids = [...new Set(settings.skillIds)];
  const listed: Skill[] = [];
  const unknown: string[] = [];
  for (const id of ids) {
    const skill = lookup(source, id);
    if (skill === undefined) unknown.push(id);
    else listed.push(skill);
  }
  if (unknown.length > 0) return { skills: [], unknown };
  if (!settings.enableAutoSearch || listed.length === 0) return { skills: listed, unknown };
  const scores = await scorer.relevance(prompt, listed.map(skillSearchText));
  return { skills: listed.filter((_, index) => (scores[index] ?? 0) >= threshold), unknown };
}
