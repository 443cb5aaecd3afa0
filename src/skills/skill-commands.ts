import { basename, resolve } from 'node:path';
import { loadSkills } from './load-skills.js';
import { skillListRow } from './manage-skills.js';
import { isSkillId, type Skill } from './skill.js';

/**
 * The `skills list|add|remove` commands of the admin command line, in the shape of its command table. The
 * admin module passes in what they share with its other commands (usage errors, table layout), so this
 * module does not import it.
 */

/** Exit codes of the admin command line (0 done, 1 failed); usage mistakes throw `usageError`. */
const EXIT_OK = 0;
const EXIT_FAILURE = 1;

/** What the admin module lends the skills commands. */
export interface SkillCommandTools {
  /** An error the admin command line reports with the usage line and exit code 2. */
  usageError: (message: string) => Error;
  /** Lays rows out as a table under a header. */
  formatTable: (header: string[], rows: string[][]) => string[];
}

/** The parsed words of a command line. */
export interface SkillCommandArgs {
  positionals: string[];
  values: Record<string, string | undefined>;
  switches: ReadonlySet<string>;
}

/** The audited writes of the skills directory (the admin operations module has them). */
export interface SkillWriter {
  addSkillFolder(
    actor: string,
    folder: string,
    options: { id: string; replace: boolean },
  ): Promise<{ skill: Skill; replaced: boolean }>;
  removeSkillFolder(actor: string, id: string): Promise<boolean>;
}

/** Who the audit log names for writes of the command line. */
const ACTOR = 'admin-cli';

/** One admin command, as the admin command table describes it. */
export interface SkillCommand {
  usage: string;
  summary: string;
  positionals: string[];
  options: string[];
  switches?: string[];
  run(
    args: SkillCommandArgs,
    ops: SkillWriter,
    out: (line: string) => void,
    options: { skillsDir?: () => string },
  ): Promise<number>;
}

/** The configured skills directory, as an absolute path; fails when none is configured. */
function skillsDirectory(options: { skillsDir?: () => string }): string {
  if (options.skillsDir === undefined) throw new Error('no skills directory is configured');
  return resolve(options.skillsDir());
}

/** `id` when it is a valid skill id, else a usage error naming `what` gave it. */
function checkedSkillId(tools: SkillCommandTools, id: string, what: string): string {
  if (isSkillId(id)) return id;
  throw tools.usageError(`${what} must be 1-64 lowercase letters, digits and single hyphens, got "${id}"`);
}

/** The `skills …` commands, keyed by `group action` as in the admin command table. */
export function skillCommands(tools: SkillCommandTools): Record<string, SkillCommand> {
  return {
    'skills list': {
      usage: '',
      summary: 'list the skills of the skills directory, and the folders that are not valid skills',
      positionals: [],
      options: [],
      async run(_args, _store, out, options) {
        const dir = skillsDirectory(options);
        const { skills, problems } = await loadSkills(dir);
        const rows = [...skills.values()].map((skill) => skillListRow(skill));
        const table =
          rows.length === 0
            ? [`no skills in ${dir}`]
            : tools.formatTable(['ID', 'NAME', 'DESCRIPTION'], rows);
        for (const line of [...table, ...problems.map((problem) => `not loaded: ${problem}`)]) out(line);
        return EXIT_OK;
      },
    },
    'skills add': {
      usage: '<folder> [--id ID] [--replace]',
      summary: 'copy an Agent Skills folder (with a SKILL.md) into the skills directory',
      positionals: ['folder'],
      options: ['id'],
      switches: ['replace'],
      async run({ positionals: [folder = ''], values, switches }, ops, out, options) {
        const what = values.id === undefined ? 'the folder name (or give --id)' : '--id';
        const id = checkedSkillId(tools, values.id ?? basename(resolve(folder)), what);
        const dir = skillsDirectory(options);
        const replace = switches.has('replace');
        const { skill, replaced } = await ops.addSkillFolder(ACTOR, folder, { id, replace });
        out(`${replaced ? 'replaced' : 'added'} skill ${id} (${skill.name}) in ${dir}`);
        out('A running gateway picks it up within a second (or reload it with SIGHUP).');
        return EXIT_OK;
      },
    },
    'skills remove': {
      usage: '<id>',
      summary: 'remove a skill from the skills directory',
      positionals: ['id'],
      options: [],
      async run({ positionals: [id = ''] }, ops, out, options) {
        const dir = skillsDirectory(options);
        if (!(await ops.removeSkillFolder(ACTOR, checkedSkillId(tools, id, 'skill id')))) {
          out(`error: no skill "${id}" in ${dir}`);
          return EXIT_FAILURE;
        }
        out(`removed skill ${id} from ${dir}`);
        return EXIT_OK;
      },
    },
  };
}
