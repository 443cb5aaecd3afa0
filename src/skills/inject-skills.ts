import type { RequestKind } from '../codecs/request-kind.js';
import { arrayMember, isRecord, type JsonObject } from '../json/json.js';
import { withMembers } from '../json/with-members.js';
import type { Skill } from './skill.js';

/**
 * How the selected skills reach the model: one system-prompt section, `skillsSystemText`, added to the
 * request by `injectSkills`. Both are pure.
 *
 * The section reads:
 *
 * ```
 * # Skills
 *
 * <one paragraph on how to use them>
 *
 * ## Skill: <name> (id: <id>)
 *
 * Description: <description>
 *
 * ### Instructions
 *
 * <the SKILL.md body, verbatim>
 *
 * ### Files
 *
 * <one sentence>
 * - scripts/fill.py
 * - references/api.md
 * ```
 *
 * with one `## Skill:` block per skill, in the order given. The Files part appears only when the folder has
 * other files; they are named by their path relative to the skill's folder (at most `MAX_LISTED_FILES`, then
 * a count of the rest), never inlined.
 */

/** Most files of one skill named in the system prompt. */
export const MAX_LISTED_FILES = 50;

/** The request shapes skills are injected into. */

const INTRO =
  'The following skills are available in this conversation. Each says what it is for. When the request ' +
  "falls within a skill's description, follow that skill's instructions.";

function skillSection(skill: Skill): string {
  const parts = [`## Skill: ${skill.name} (id: ${skill.id})`, `Description: ${skill.description}`];
  if (skill.instructions !== '') parts.push('### Instructions', skill.instructions);
  if (skill.files.length > 0) {
    const listed = skill.files.slice(0, MAX_LISTED_FILES).map((file) => `- ${file}`);
    const rest = skill.files.length - listed.length;
    if (rest > 0) listed.push(`- … and ${rest} more`);
    parts.push(
      '### Files',
      `The instructions may refer to these files of the skill (paths relative to the skill's folder; their ` +
        `content is not included here):\n${listed.join('\n')}`,
    );
  }
  return parts.join('\n\n');
}

/** The system-prompt section for `skills` (format above); empty when there are none. */
export function skillsSystemText(skills: readonly Skill[]): string {
  if (skills.length === 0) return '';
  return ['# Skills', INTRO, ...skills.map(skillSection)].join('\n\n');
}

const isInstructionMessage = (message: unknown): boolean =>
  isRecord(message) && (message.role === 'system' || message.role === 'developer');

/**
 * A copy of `request` with `text` added as system prompt; `request` itself is not changed. Chat
 * completions: a new system message after the leading system and developer messages (so the caller's own
 * system prompt stays first), before the first other message. Responses: appended to `instructions` after
 * a blank line, or as `instructions` when there are none. Empty `text` adds nothing.
 */
export function injectSkills(request: JsonObject, kind: RequestKind, text: string): JsonObject {
  if (text === '') return { ...request };
  if (kind === 'responses') {
    const current = request.instructions;
    const instructions =
      typeof current === 'string' && current.trim() !== '' ? `${current}\n\n${text}` : text;
    return withMembers(request, { instructions });
  }
  const messages = arrayMember(request, 'messages') ?? [];
  const firstOther = messages.findIndex((message) => !isInstructionMessage(message));
  const at = firstOther < 0 ? messages.length : firstOther;
  return withMembers(request, {
    messages: [...messages.slice(0, at), { role: 'system', content: text }, ...messages.slice(at)],
  });
}
