import { randomUUID } from 'node:crypto';
import { cp, lstat, mkdir, rename, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readSkill } from './load-skills.js';
import type { Skill } from './skill.js';
import { isSkillId } from './skill.js';

/**
 * What the admin command does to the skills directory. Each change is one rename inside the directory: a
 * skill is copied into a hidden temporary folder (which the loader skips) and then renamed into place, and a
 * removed skill is renamed away before it is deleted, so a watching gateway never loads half a skill.
 */

export interface AddSkillOptions {
  /** The id (folder name) to add it as; the source folder's name when absent. */
  id: string;
  /** Replace a skill with the same id instead of refusing. */
  replace: boolean;
}

export interface AddedSkill {
  /** The skill as loaded from its new place. */
  skill: Skill;
  /** Whether a skill with this id was replaced. */
  replaced: boolean;
}

const exists = (path: string): Promise<boolean> =>
  lstat(path).then(
    () => true,
    () => false,
  );

const hiddenSibling = (skillsDir: string, purpose: string, id: string): string =>
  join(skillsDir, `.${purpose}-${id}-${randomUUID()}`);

/**
 * Copies the skill folder `source` (validated: a SKILL.md with `name` and `description`) into `skillsDir`
 * as `options.id`, creating the directory if needed. Throws an Error with a message for the operator when
 * the folder is not a valid skill, the id is taken (without `replace`) or the copy fails.
 */
export async function addSkillFolder(
  skillsDir: string,
  source: string,
  options: AddSkillOptions,
): Promise<AddedSkill> {
  const { id, replace } = options;
  if (!isSkillId(id)) throw new Error(`"${id}" is not a valid skill id`);
  const from = resolve(source);
  const checked = await readSkill(from, id);
  if (!checked.ok) throw new Error(`${from} is not a valid skill: ${checked.problem}`);
  const root = resolve(skillsDir);
  const target = join(root, id);
  const replaced = await exists(target);
  if (replaced && !replace) {
    throw new Error(`a skill "${id}" already exists in ${root}; add --replace to replace it`);
  }
  await mkdir(root, { recursive: true });
  const staging = hiddenSibling(root, 'add', id);
  try {
    await cp(from, staging, { recursive: true, dereference: true, errorOnExist: true, force: false });
    if (replaced) {
      const old = hiddenSibling(root, 'old', id);
      await rename(target, old);
      await rename(staging, target).catch(async (error: unknown) => {
        await rename(old, target); // put the previous skill back
        throw error;
      });
      await rm(old, { recursive: true, force: true });
    } else {
      await rename(staging, target);
    }
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  const added = await readSkill(target, id);
  if (!added.ok) throw new Error(`copied, but the copy is not a valid skill: ${added.problem}`);
  return { skill: added.skill, replaced };
}

/**
 * Removes the skill `id` from `skillsDir`. Returns false when there is no such skill folder; throws on an
 * invalid id or a failed removal.
 */
export async function removeSkillFolder(skillsDir: string, id: string): Promise<boolean> {
  if (!isSkillId(id)) throw new Error(`"${id}" is not a valid skill id`);
  const root = resolve(skillsDir);
  const target = join(root, id);
  const info = await lstat(target).catch(() => undefined);
  if (info === undefined || !(info.isDirectory() || info.isSymbolicLink())) return false;
  const doomed = hiddenSibling(root, 'remove', id);
  await rename(target, doomed);
  await rm(doomed, { recursive: true, force: true });
  return true;
}

/** One line of `skills list`: id, name, and the description on one line, cut to `width` characters. */
export function skillListRow(skill: Skill, width = 100): [string, string, string] {
  const description = skill.description.replace(/\s+/g, ' ').trim();
  return [
    skill.id,
    skill.name,
    description.length > width ? `${description.slice(0, width - 1)}…` : description,
  ];
}
