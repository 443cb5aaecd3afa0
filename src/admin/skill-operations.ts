import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { badRequest } from '../errors/gateway-error.js';
import { loadSkills } from '../skills/load-skills.js';
import { addSkillFolder, removeSkillFolder } from '../skills/manage-skills.js';
import { isSkillId } from '../skills/skill.js';
import { addSkillSchema } from './admin-schemas.js';
import { missing, parseInput } from './admin-views.js';
import type { AuditWriter } from './audit.js';

/** A skill as the admin API lists it. */
export interface SkillView {
  id: string;
  name: string;
  description: string;
  files: string[];
}

/**
 * Errors of the file system that come from the shape of the file set, not from the machine: a name too long
 * for it, a path used as file and folder (also `A` beside `a/b` where names are case-insensitive), a file
 * sent twice under names it takes as one. Any of them is the caller's 400; a full disk or a refused write
 * stays a 500.
 */
const SHAPE_ERRORS = new Set(['EEXIST', 'ENOTDIR', 'EISDIR', 'ENAMETOOLONG', 'EINVAL']);

/** Writes the uploaded files under `folder`; a file set the file system cannot hold is a 400 naming `files`. */
async function stageFiles(folder: string, files: Record<string, string>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    try {
      await mkdir(dirname(join(folder, path)), { recursive: true });
      await writeFile(join(folder, path), text, { flag: 'wx' });
    } catch (error) {
      const code = error instanceof Error && 'code' in error ? String(error.code) : '';
      if (!SHAPE_ERRORS.has(code)) throw error;
      // the path is the caller's own (validated, printable); the staging folder's is never shown
      throw badRequest(`body.files: "${path}" cannot be stored as a file (${code})`, 'files');
    }
  }
}

/**
 * The skills directory: list, add (the folder's files sent as text, validated and moved into place the way
 * `npm run admin -- skills add` does) and remove. Writes are audited; a running gateway reloads the directory.
 */
export function skillOperations(skillsDir: () => string, audit: AuditWriter) {
  return {
    async listSkills(): Promise<{ data: SkillView[]; problems: string[]; next_cursor: null }> {
      const { skills, problems } = await loadSkills(skillsDir());
      const data = [...skills.values()]
        .map(({ id, name, description, files }) => ({ id, name, description, files }))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      return { data, problems, next_cursor: null };
    },

    /** Adds a skill from `{id, files: {"SKILL.md": "…", …}, replace?}`; 400 when it is not a valid skill. */
    async addSkill(actor: string, body: unknown): Promise<SkillView> {
      const input = parseInput(addSkillSchema, body, 'body');
      const staging = await mkdtemp(join(tmpdir(), 'gateway-skill-'));
      try {
        const folder = join(staging, input.id);
        await stageFiles(folder, input.files);
        const { skill, replaced } = await addSkillFolder(skillsDir(), folder, {
          id: input.id,
          replace: input.replace === true,
        }).catch((error: unknown) => {
          throw badRequest(
            error instanceof Error ? error.message.replaceAll(staging, '<upload>') : String(error),
          );
        });
        const view = { id: skill.id, name: skill.name, description: skill.description, files: skill.files };
        await audit(actor, replaced ? 'skill.replace' : 'skill.add', `skill:${skill.id}`, null, view);
        return view;
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },

    /** Copies a local skill folder into the directory (the command line's `skills add`), audited. */
    async addSkillFolder(actor: string, folder: string, options: { id: string; replace: boolean }) {
      const added = await addSkillFolder(skillsDir(), folder, options);
      const { id, name, description, files } = added.skill;
      await audit(actor, added.replaced ? 'skill.replace' : 'skill.add', `skill:${id}`, null, {
        ...{ id, name, description, files },
      });
      return added;
    },

    /** Removes a skill folder, audited; false when there is none (the command line's `skills remove`). */
    async removeSkillFolder(actor: string, id: string): Promise<boolean> {
      if (!(await removeSkillFolder(skillsDir(), id))) return false;
      await audit(actor, 'skill.remove', `skill:${id}`, { id }, null);
      return true;
    },

    async removeSkill(actor: string, id: string): Promise<{ id: string }> {
      if (!isSkillId(id) || !(await removeSkillFolder(skillsDir(), id))) {
        throw missing(`there is no skill "${id}"`);
      }
      await audit(actor, 'skill.remove', `skill:${id}`, { id }, null);
      return { id };
    },
  };
}
