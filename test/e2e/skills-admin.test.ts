import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';

const run = promisify(execFile);

let dir: string;
let skillsDir: string;
let env: NodeJS.ProcessEnv;

/** Runs the built admin command line (`node dist/admin/main.js …`); resolves with exit code and output. */
async function admin(...argv: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await run(process.execPath, ['dist/admin/main.js', ...argv], { env });
    return { code: 0, stdout };
  } catch (error) {
    // execFile rejects on a non-zero exit with the code and output on the error
    const code =
      error instanceof Error && 'code' in error && typeof error.code === 'number' ? error.code : -1;
    const stdout =
      error instanceof Error && 'stdout' in error && typeof error.stdout === 'string' ? error.stdout : '';
    return { code, stdout };
  }
}

function writeSourceSkill(root: string, folder: string, description: string): string {
  const skill = join(root, folder);
  mkdirSync(join(skill, 'scripts'), { recursive: true });
  writeFileSync(
    join(skill, 'SKILL.md'),
    `---\nname: ${folder}\ndescription: ${description}\n---\n\n# Do it\n`,
  );
  writeFileSync(join(skill, 'scripts', 'run.sh'), 'echo hi\n');
  return skill;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-skills-admin-'));
  skillsDir = join(dir, 'skills-here');
  const configPath = join(dir, 'gateway.yaml');
  writeFileSync(configPath, stringify({ skills: { dir: skillsDir } }));
  env = {
    ...process.env,
    GATEWAY_CONFIG: configPath,
    DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`,
  };
});

describe('npm run admin -- skills … (the built command line)', () => {
  it('adds, lists and removes skills in the configured skills.dir', async () => {
    const sources = join(dir, 'sources');
    const source = writeSourceSkill(sources, 'release-notes', 'Write release notes from a changelog.');

    expect(await admin('skills', 'list')).toEqual({ code: 0, stdout: `no skills in ${skillsDir}\n` });

    const added = await admin('skills', 'add', source);
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(`added skill release-notes (release-notes) in ${skillsDir}`);
    expect(existsSync(join(skillsDir, 'release-notes', 'scripts', 'run.sh'))).toBe(true);

    expect((await admin('skills', 'add', source)).code).toBe(1);
    expect((await admin('skills', 'add', source, '--id', 'notes-v2')).code).toBe(0);

    const listed = await admin('skills', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^ID\s+NAME\s+DESCRIPTION$/),
      expect.stringMatching(/^notes-v2\s+release-notes\s+Write release notes from a changelog\.$/),
      expect.stringMatching(/^release-notes\s+release-notes\s+Write release notes from a changelog\.$/),
    ]);

    expect((await admin('skills', 'remove', 'release-notes')).code).toBe(0);
    expect(readdirSync(skillsDir)).toEqual(['notes-v2']);
    expect(await admin('skills', 'remove', 'release-notes')).toMatchObject({ code: 1 });
    expect((await admin('skills', 'remove', '../x')).code).toBe(2);
  });

  it('reports an invalid config for skills commands only', async () => {
    const badConfig = join(dir, 'bad.yaml');
    writeFileSync(badConfig, stringify({ skills: { folder: 'x' } }));
    const saved = env;
    env = { ...saved, GATEWAY_CONFIG: badConfig };
    try {
      const listed = await admin('skills', 'list');
      expect(listed.code).toBe(1);
      expect(listed.stdout).toMatch(/error: Invalid config .*skills\.folder: unknown key/s);
      expect((await admin('org', 'list')).code).toBe(0);
    } finally {
      env = saved;
    }
  });
});
