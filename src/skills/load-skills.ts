import type { Dirent } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { isSkillId, SKILL_FILE, type Skill } from './skill.js';

/**
 * Reads a skills directory: each subfolder holding a `SKILL.md` is a skill whose id is the folder's name.
 *
 * SKILL.md must start with YAML front matter between `---` lines; `name` (1..64 characters) and
 * `description` (1..1024 characters) are required, as in the Agent Skills format; `license`,
 * `compatibility`, `allowed-tools` and `metadata` are read when present; other keys are ignored. Unlike the
 * format, `name` need not equal the folder name: it is the display name, the folder name is the id.
 * Entries whose name starts with `.` are skipped everywhere (hidden files, `.git`, and the temporary folders
 * `skills add` and `skills remove` use to swap a skill in or out in one rename).
 */

/** Largest SKILL.md read; a bigger one is a problem, not a skill. */
export const MAX_SKILL_FILE_BYTES = 1024 * 1024;

/** The skills of a directory and why any folder of it was not loaded. */
export interface LoadedSkills {
  skills: Map<string, Skill>;
  /** One sentence per folder that was not loaded, naming the folder. */
  problems: string[];
}

/** One skill folder read: the skill, or why it is not one. */
export type SkillReadResult = { ok: true; skill: Skill } | { ok: false; problem: string };

const requiredText = (max: number) =>
  z
    .string({ error: (issue) => (issue.input === undefined ? 'is required' : 'must be a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`);

const frontMatterSchema = z.looseObject({
  name: requiredText(64),
  description: requiredText(1024),
  license: z.string().optional(),
  compatibility: z.string().max(500, 'must be at most 500 characters').optional(),
  'allowed-tools': z.union([z.string(), z.array(z.string())]).optional(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

const isMissing = (error: unknown): boolean =>
  error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ENOTDIR');

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Parses the text of a SKILL.md for the skill `id` in `dir`, listing `files` as its other files. Pure: the
 * caller reads the folder.
 */
export function parseSkill(text: string, id: string, dir: string, files: string[]): SkillReadResult {
  const match = FRONT_MATTER.exec(text);
  if (match === null) {
    return { ok: false, problem: `skill "${id}": ${SKILL_FILE} does not start with YAML front matter (---)` };
  }
  let raw: unknown;
  try {
    raw = parseYaml(match[1] ?? '') ?? {};
  } catch (error) {
    return { ok: false, problem: `skill "${id}": front matter is not valid YAML: ${messageOf(error)}` };
  }
  const parsed = frontMatterSchema.safeParse(raw);
  if (!parsed.success) {
    const details = parsed.error.issues
      .map((issue) => `${issue.path.map(String).join('.') || 'front matter'} ${issue.message}`)
      .join('; ');
    return { ok: false, problem: `skill "${id}": front matter ${details}` };
  }
  const front = parsed.data;
  const tools = front['allowed-tools'];
  const skill: Skill = {
    id,
    name: front.name,
    description: front.description,
    instructions: text.slice(match[0].length).trim(),
    files,
    dir,
  };
  if (front.license !== undefined) skill.license = front.license;
  if (front.compatibility !== undefined) skill.compatibility = front.compatibility;
  if (tools !== undefined) {
    skill.allowedTools = typeof tools === 'string' ? tools.split(/\s+/).filter(Boolean) : tools;
  }
  if (front.metadata !== undefined) {
    skill.metadata = Object.fromEntries(Object.entries(front.metadata).map(([k, v]) => [k, String(v)]));
  }
  return { ok: true, skill };
}

/** Regular files under `dir` (not following symbolic links, skipping `.` entries), relative, sorted. */
export async function listSkillFiles(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(join(dir, prefix), { withFileTypes: true });
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.name.startsWith('.')) continue;
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) files.push(...(await listSkillFiles(dir, path)));
    else if (entry.isFile() && path !== SKILL_FILE) files.push(path);
  }
  return files.sort();
}

/** Reads the skill folder `folder` as the skill `id` (validated as a slug). */
export async function readSkill(folder: string, id: string): Promise<SkillReadResult> {
  if (!isSkillId(id)) {
    return {
      ok: false,
      problem: `folder "${id}" is not a valid skill id (1-64 lowercase letters, digits and single hyphens)`,
    };
  }
  const dir = resolve(folder);
  const file = join(dir, SKILL_FILE);
  try {
    const info = await stat(file);
    if (!info.isFile()) return { ok: false, problem: `skill "${id}": ${SKILL_FILE} is not a file` };
    if (info.size > MAX_SKILL_FILE_BYTES) {
      return {
        ok: false,
        problem: `skill "${id}": ${SKILL_FILE} is larger than ${MAX_SKILL_FILE_BYTES} bytes`,
      };
    }
    const [text, files] = await Promise.all([readFile(file, 'utf8'), listSkillFiles(dir)]);
    return parseSkill(text, id, dir, files);
  } catch (error) {
    if (isMissing(error)) return { ok: false, problem: `skill "${id}": folder has no ${SKILL_FILE}` };
    return { ok: false, problem: `skill "${id}": cannot be read: ${messageOf(error)}` };
  }
}

/** Whether a directory entry is a folder, following a symbolic link to one. */
async function isFolder(dir: string, entry: Dirent): Promise<boolean> {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return (await stat(join(dir, entry.name))).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Loads every skill of the skills directory `dir`. A missing directory is an empty registry; a folder that
 * is not a valid skill is left out and reported in `problems`; files at the top level are ignored. Throws
 * only when the directory exists but cannot be listed (so a reload can keep the skills it had).
 */
export async function loadSkills(dir: string): Promise<LoadedSkills> {
  const root = resolve(dir);
  let entries: Dirent[];
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (error) {
    if (isMissing(error)) return { skills: new Map(), problems: [] };
    throw error;
  }
  const folders: string[] = [];
  for (const entry of entries) {
    if (!entry.name.startsWith('.') && (await isFolder(root, entry))) folders.push(entry.name);
  }
  folders.sort();
  const results = await Promise.all(folders.map((name) => readSkill(join(root, name), name)));
  const skills = new Map<string, Skill>();
  const problems: string[] = [];
  for (const result of results) {
    if (result.ok) skills.set(result.skill.id, result.skill);
    else problems.push(result.problem);
  }
  return { skills, problems };
}
