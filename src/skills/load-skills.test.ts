import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir, writeSkill } from './__fixtures__/write-skill.js';
import { loadSkills, parseSkill, readSkill } from './load-skills.js';
import { isSkillId } from './skill.js';

describe('loadSkills', () => {
  it('loads a valid skill: id from the folder, front matter, body, other files', async () => {
    const root = tempDir();
    const dir = writeSkill(root, 'pdf-processing', {
      skillFile: [
        '---',
        'name: PDF processing',
        'description: >-',
        '  Extract text and tables from PDF files.',
        '  Use when the user mentions PDFs.',
        'license: Apache-2.0',
        'allowed-tools: Bash(git:*) Read',
        'metadata:',
        '  author: example-org',
        '  version: 1.0',
        'x-custom: ignored',
        '---',
        '',
        '# PDF processing',
        '',
        'Run scripts/extract.py on the file.',
        '',
      ].join('\n'),
      files: { 'scripts/extract.py': 'print(1)', 'references/api.md': '# API', 'assets/form.pdf': '%PDF' },
    });
    const { skills, problems } = await loadSkills(root);
    expect(problems).toEqual([]);
    expect([...skills.keys()]).toEqual(['pdf-processing']);
    expect(skills.get('pdf-processing')).toEqual({
      id: 'pdf-processing',
      name: 'PDF processing',
      description: 'Extract text and tables from PDF files. Use when the user mentions PDFs.',
      instructions: '# PDF processing\n\nRun scripts/extract.py on the file.',
      files: ['assets/form.pdf', 'references/api.md', 'scripts/extract.py'],
      dir,
      license: 'Apache-2.0',
      allowedTools: ['Bash(git:*)', 'Read'],
      metadata: { author: 'example-org', version: '1' },
    });
  });

  it('is an empty registry for a missing directory, without problems', async () => {
    expect(await loadSkills(join(tempDir(), 'nope'))).toEqual({ skills: new Map(), problems: [] });
  });

  it.each([
    ['no front matter', '# Just a body\n', /does not start with YAML front matter/],
    ['an unclosed front matter', '---\nname: a\ndescription: b\n', /does not start with YAML front matter/],
    ['no description', '---\nname: thing\n---\nbody\n', /description is required/],
    ['no name', '---\ndescription: does things\n---\nbody\n', /name is required/],
    ['an empty description', '---\nname: a\ndescription: "  "\n---\n', /description must not be empty/],
    ['a numeric name', '---\nname: 42\ndescription: d\n---\n', /name must be a string/],
    ['invalid YAML', '---\nname: [unclosed\ndescription: d\n---\n', /not valid YAML/],
    ['a list as front matter', '---\n- a\n- b\n---\n', /front matter/],
    ['an empty front matter', '---\n---\nbody\n', /name is required/],
    ['a too long description', `---\nname: a\ndescription: ${'x'.repeat(1025)}\n---\n`, /at most 1024/],
  ])('reports a SKILL.md with %s and does not load it', async (_case, text, problem) => {
    const root = tempDir();
    writeSkill(root, 'broken', { skillFile: text });
    writeSkill(root, 'fine');
    const { skills, problems } = await loadSkills(root);
    expect([...skills.keys()]).toEqual(['fine']);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^skill "broken": /);
    expect(problems[0]).toMatch(problem);
  });

  it('reports folders without SKILL.md and folders whose names are not slugs', async () => {
    const root = tempDir();
    for (const folder of ['My Skill', 'UPPER', 'a--b', '-dash', 'under_score', 'x'.repeat(65)]) {
      writeSkill(root, folder);
    }
    mkdirSync(join(root, 'empty'));
    writeSkill(root, 'ok-2');
    const { skills, problems } = await loadSkills(root);
    expect([...skills.keys()]).toEqual(['ok-2']);
    expect(problems).toHaveLength(7);
    expect(problems).toContain('skill "empty": folder has no SKILL.md');
    expect(problems.filter((p) => /is not a valid skill id/.test(p))).toHaveLength(6);
    expect(problems.join('\n')).toContain('folder "My Skill" is not a valid skill id');
  });

  it('skips hidden entries and top-level files, lists nested files sorted, not links', async () => {
    const root = tempDir();
    writeSkill(root, '.staging');
    writeFileSync(join(root, 'README.md'), '# not a skill');
    const dir = writeSkill(root, 'deep', {
      files: { 'b.txt': 'b', 'a/z/y.md': 'y', 'a/x.md': 'x', '.DS_Store': '', '.git/config': '' },
    });
    symlinkSync(join(dir, 'b.txt'), join(dir, 'link.txt'));
    const { skills, problems } = await loadSkills(root);
    expect(problems).toEqual([]);
    expect(skills.get('deep')?.files).toEqual(['a/x.md', 'a/z/y.md', 'b.txt']);
  });

  it('follows a symbolic link to a skill folder at the top level', async () => {
    const elsewhere = tempDir();
    const root = tempDir();
    writeSkill(elsewhere, 'linked');
    symlinkSync(join(elsewhere, 'linked'), join(root, 'linked'));
    const { skills } = await loadSkills(root);
    expect(skills.get('linked')?.name).toBe('linked');
  });

  it('reads front matter with a byte-order mark and CRLF line ends', async () => {
    const root = tempDir();
    writeSkill(root, 'windows', { skillFile: '\uFEFF---\r\nname: Win\r\ndescription: d\r\n---\r\nBody\r\n' });
    const { skills } = await loadSkills(root);
    expect(skills.get('windows')).toMatchObject({ name: 'Win', description: 'd', instructions: 'Body' });
  });
});

describe('readSkill and parseSkill', () => {
  it('validates the id before reading', async () => {
    expect(await readSkill(tempDir(), 'Bad Id')).toEqual({
      ok: false,
      problem: 'folder "Bad Id" is not a valid skill id (1-64 lowercase letters, digits and single hyphens)',
    });
  });

  it('parses a body-less skill and trims names', () => {
    const result = parseSkill('---\nname: "  Tidy "\ndescription: d\n---\n', 'tidy', '/s/tidy', []);
    expect(result).toEqual({
      ok: true,
      skill: { id: 'tidy', name: 'Tidy', description: 'd', instructions: '', files: [], dir: '/s/tidy' },
    });
  });

  it.each([
    ['a', true],
    ['pdf-processing', true],
    ['v2-api-3', true],
    ['x'.repeat(64), true],
    ['', false],
    ['x'.repeat(65), false],
    ['A', false],
    ['a-', false],
    ['a--b', false],
    ['a.b', false],
    ['../etc', false],
  ])('isSkillId(%j) is %s', (id, valid) => {
    expect(isSkillId(id)).toBe(valid);
  });
});
