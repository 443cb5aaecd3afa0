import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir, writeSkill } from './__fixtures__/write-skill.js';
import { SkillRegistry } from './skill-registry.js';

/** Polls `check` until it holds, failing after `timeoutMs`. */
async function eventually(check: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe('SkillRegistry', () => {
  it('loads once on create, lists by id, and logs folders it left out', async () => {
    const root = tempDir();
    writeSkill(root, 'zeta');
    writeSkill(root, 'alpha');
    writeSkill(root, 'broken', { skillFile: '# no front matter' });
    const logs: string[] = [];
    const registry = await SkillRegistry.create(root, (line) => logs.push(line));
    expect(registry.list().map((skill) => skill.id)).toEqual(['alpha', 'zeta']);
    expect(registry.get('alpha')?.name).toBe('alpha');
    expect(registry.get('broken')).toBeUndefined();
    expect(registry.problems()).toHaveLength(1);
    expect(logs).toEqual([expect.stringMatching(/^skills: skill "broken": .*; not loaded$/)]);
  });

  it('reload swaps in the new set; readers keep the snapshot they took', async () => {
    const root = tempDir();
    writeSkill(root, 'one');
    const registry = await SkillRegistry.create(root, () => {});
    const before = registry.list();
    writeSkill(root, 'two');
    rmSync(join(root, 'one'), { recursive: true });
    const pending = registry.reload();
    expect(registry.list()).toEqual(before);
    await pending;
    expect(registry.list().map((skill) => skill.id)).toEqual(['two']);
    expect(before.map((skill) => skill.id)).toEqual(['one']);
  });

  it('concurrent reloads run in order, the last one reflecting the latest state', async () => {
    const root = tempDir();
    const registry = await SkillRegistry.create(root, () => {});
    const first = registry.reload();
    writeSkill(root, 'late');
    const second = registry.reload();
    await Promise.all([first, second]);
    expect(registry.get('late')).toBeDefined();
  });

  it('keeps its skills and logs when the directory cannot be read', async () => {
    const parent = tempDir();
    const root = join(parent, 'skills');
    writeSkill(root, 'kept');
    const logs: string[] = [];
    const registry = await SkillRegistry.create(root, (line) => logs.push(line));
    renameSync(root, join(parent, 'moved'));
    symlinkSync(root, root); // a link to itself: listing it fails with ELOOP, even for root
    await registry.reload();
    expect(registry.get('kept')).toBeDefined();
    expect(logs.join('\n')).toMatch(/cannot read .*keeping the 1 loaded: .*ELOOP/);
  });

  it('watch() picks up a skill written into the directory, and its removal', async () => {
    const root = tempDir();
    const registry = await SkillRegistry.create(root, () => {});
    stops.push(registry.watch());
    writeSkill(root, 'fresh', { description: 'Brand new.' });
    await eventually(() => registry.get('fresh')?.description === 'Brand new.');
    writeFileSync(join(root, 'fresh', 'SKILL.md'), '---\nname: fresh\ndescription: Edited.\n---\n');
    await eventually(() => registry.get('fresh')?.description === 'Edited.');
    rmSync(join(root, 'fresh'), { recursive: true });
    await eventually(() => registry.get('fresh') === undefined);
  });

  it('watch() waits for a missing directory to appear, and follows it when replaced', async () => {
    const parent = tempDir();
    const root = join(parent, 'skills');
    const registry = await SkillRegistry.create(root, () => {});
    expect(registry.list()).toEqual([]);
    stops.push(registry.watch());
    const staging = join(parent, 'staging');
    writeSkill(staging, 'first');
    renameSync(staging, root);
    await eventually(() => registry.get('first') !== undefined);
    rmSync(root, { recursive: true });
    await eventually(() => registry.list().length === 0);
    mkdirSync(root);
    writeSkill(root, 'second');
    await eventually(() => registry.get('second') !== undefined);
  });

  it('stops reloading once the watch is stopped', async () => {
    const root = tempDir();
    const registry = await SkillRegistry.create(root, () => {});
    const stop = registry.watch();
    stop();
    writeSkill(root, 'unseen');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(registry.get('unseen')).toBeUndefined();
  });
});
