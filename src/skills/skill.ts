/**
 * A skill of the gateway's skills directory, in the Agent Skills format: a folder `<id>/SKILL.md` whose YAML
 * front matter names and describes it and whose Markdown body holds the instructions, plus optional files
 * the body refers to (`scripts/`, `references/`, `assets/`, ...).
 */
export interface Skill {
  /** The folder's name: a lowercase slug (see `SKILL_ID`), the id requests name in `skills.skillIds`. */
  id: string;
  /** Front matter `name`. */
  name: string;
  /** Front matter `description`: what the skill does and when to use it. */
  description: string;
  /** The Markdown body of SKILL.md (after the front matter), trimmed. */
  instructions: string;
  /** Paths of the folder's other regular files, relative to it, `/`-separated, sorted. */
  files: string[];
  /** Absolute path of the skill's folder. */
  dir: string;
  /** Front matter `license`, when given. */
  license?: string;
  /** Front matter `compatibility`, when given. */
  compatibility?: string;
  /** Front matter `allowed-tools` (a space-separated string or a list in the file), when given. */
  allowedTools?: string[];
  /** Front matter `metadata`, when given (values as strings). */
  metadata?: Record<string, string>;
}

/**
 * A skill id (folder name): the Agent Skills rule for names. 1 to 64 lowercase letters, digits and hyphens;
 * no hyphen at either end and no two in a row.
 */
export const SKILL_ID = /^(?=.{1,64}$)[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Whether `id` is a valid skill id (folder name). */
export function isSkillId(id: string): boolean {
  return SKILL_ID.test(id);
}

/** The file that makes a folder a skill. */
export const SKILL_FILE = 'SKILL.md';
