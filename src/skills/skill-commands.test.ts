import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../admin/commands.js';
import { SqliteStore } from '../store/sqlite-store.js';
import { tempDir, writeSkill } from './__fixtures__/write-skill.js';
import { loadSkills } from './load-skills.js';

let store: SqliteStore;
let lines: string[];
let skillsDir: string;
let sources: string;

beforeEach(async () => {
  store = new SqliteStore(':memory:');
  await store.migrate();
  skillsDir = join(tempDir(), 'skills'); // created by the first `skills add`
  sources = tempDir('skill-sources-');
  lines = [];
});
afterEach(async () => {
  await store.close();
});

/** Runs `skills …` with the skills directory of the test; returns the exit code. */
function admin(...argv: string[]): Promise<number> {
  lines = [];
  return runAdminCommand(argv, store, (line) => lines.push(line), { skillsDir: () => skillsDir });
}

const output = () => lines.join('\n');

describe('skills commands', () => {
  it('adds a skill folder with all its files, lists it and removes it', async () => {
    const source = writeSkill(sources, 'pdf-tools', {
      name: 'PDF tools',
      description: 'Work with PDF files.',
      files: { 'scripts/run.py': 'print(1)', 'references/a.md': '# A' },
    });
    expect(await admin('skills', 'list')).toBe(0);
    expect(lines).toEqual([`no skills in ${skillsDir}`]);

    expect(await admin('skills', 'add', source)).toBe(0);
    expect(lines[0]).toBe(`added skill pdf-tools (PDF tools) in ${skillsDir}`);
    expect(readFileSync(join(skillsDir, 'pdf-tools', 'scripts', 'run.py'), 'utf8')).toBe('print(1)');
    expect((await loadSkills(skillsDir)).skills.get('pdf-tools')?.files).toEqual([
      'references/a.md',
      'scripts/run.py',
    ]);
    expect(readdirSync(skillsDir)).toEqual(['pdf-tools']); // no staging folder left behind

    expect(await admin('skills', 'list')).toBe(0);
    expect(lines[0]).toMatch(/^ID\s+NAME\s+DESCRIPTION$/);
    expect(lines[1]).toMatch(/^pdf-tools\s+PDF tools\s+Work with PDF files\.$/);
    expect(lines).toHaveLength(2);

    expect(await admin('skills', 'remove', 'pdf-tools')).toBe(0);
    expect(output()).toBe(`removed skill pdf-tools from ${skillsDir}`);
    expect(readdirSync(skillsDir)).toEqual([]);
    expect(await admin('skills', 'remove', 'pdf-tools')).toBe(1);
    expect(output()).toMatch(/no skill "pdf-tools"/);
  });

  it('adds under another id with --id, and refuses to overwrite without --replace', async () => {
    const source = writeSkill(sources, 'Some Folder', { description: 'First.' });
    expect(await admin('skills', 'add', source)).toBe(2);
    expect(output()).toMatch(/the folder name \(or give --id\) must be .*got "Some Folder"/);
    expect(await admin('skills', 'add', source, '--id', 'mine')).toBe(0);
    const other = writeSkill(sources, 'other', { description: 'Second.' });
    expect(await admin('skills', 'add', other, '--id', 'mine')).toBe(1);
    expect(output()).toMatch(/a skill "mine" already exists .* --replace/);
    expect((await loadSkills(skillsDir)).skills.get('mine')?.description).toBe('First.');
    expect(await admin('skills', 'add', other, '--id', 'mine', '--replace')).toBe(0);
    expect(lines[0]).toMatch(/^replaced skill mine/);
    expect((await loadSkills(skillsDir)).skills.get('mine')?.description).toBe('Second.');
    expect(readdirSync(skillsDir)).toEqual(['mine']);
  });

  it('refuses a folder that is not a valid skill, copying nothing', async () => {
    const noDescription = writeSkill(sources, 'half', { skillFile: '---\nname: half\n---\nbody\n' });
    expect(await admin('skills', 'add', noDescription)).toBe(1);
    expect(output()).toMatch(/is not a valid skill: skill "half": front matter description is required/);
    expect(await admin('skills', 'add', join(sources, 'missing'))).toBe(1);
    expect(output()).toMatch(/folder has no SKILL.md/);
    expect(existsSync(join(skillsDir, 'half'))).toBe(false);
  });

  it('lists folders that are not valid skills after the table', async () => {
    writeSkill(skillsDir, 'good');
    writeSkill(skillsDir, 'bad', { skillFile: 'no front matter' });
    expect(await admin('skills', 'list')).toBe(0);
    expect(lines[1]).toMatch(/^good\s+good\s+Helps with good\.$/);
    expect(lines[2]).toMatch(/^not loaded: skill "bad": .*front matter/);
  });

  it('rejects malformed ids and arguments as usage errors', async () => {
    expect(await admin('skills', 'remove', '../etc')).toBe(2);
    expect(output()).toMatch(/skill id must be .*got "\.\.\/etc"/);
    expect(output()).toContain('usage: skills remove <id>');
    expect(await admin('skills', 'add', writeSkill(sources, 'ok'), '--id', 'Bad')).toBe(2);
    expect(await admin('skills', 'add')).toBe(2);
    expect(await admin('skills', 'add', 'a', '--replace=yes')).toBe(2);
    expect(await admin('skills', 'list', 'extra')).toBe(2);
  });

  it('fails without a configured skills directory, and reports a config error', async () => {
    expect(await runAdminCommand(['skills', 'list'], store, (line) => lines.push(line))).toBe(1);
    expect(lines).toEqual(['error: no skills directory is configured']);
    const failing = () => {
      throw new Error('Invalid config x.yaml');
    };
    lines = [];
    expect(
      await runAdminCommand(['skills', 'list'], store, (l) => lines.push(l), { skillsDir: failing }),
    ).toBe(1);
    expect(lines).toEqual(['error: Invalid config x.yaml']);
  });

  it('appears in the help', async () => {
    expect(await admin('help')).toBe(0);
    expect(output()).toContain('skills add <folder> [--id ID] [--replace]');
    expect(output()).toContain('skills remove <id>');
  });
});
