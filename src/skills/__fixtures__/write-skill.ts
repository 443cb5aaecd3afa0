import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A fresh temporary directory for one test. */
export function tempDir(prefix = 'skills-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export interface SkillFixture {
  name?: string;
  description?: string;
  body?: string;
  /** The whole SKILL.md text, instead of one made from name, description and body. */
  skillFile?: string;
  /** Other files: relative path → content. */
  files?: Record<string, string>;
}

/** Writes the skill folder `root/folder` and returns its path. */
export function writeSkill(root: string, folder: string, fixture: SkillFixture = {}): string {
  const dir = join(root, folder);
  mkdirSync(dir, { recursive: true });
  const name = fixture.name ?? folder;
  const description = fixture.description ?? `Helps with ${folder}.`;
  const text =
    fixture.skillFile ??
    `---\nname: ${name}\ndescription: ${description}\n---\n\n${fixture.body ?? `# ${name}\n\nDo ${folder} well.`}\n`;
  writeFileSync(join(dir, 'SKILL.md'), text);
  for (const [path, content] of Object.entries(fixture.files ?? {})) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  return dir;
}
