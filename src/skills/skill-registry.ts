import { type FSWatcher, watch as fsWatch, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { compareCodeUnits } from '../json/json.js';
import { loadSkills } from './load-skills.js';
import type { Skill } from './skill.js';

/** Quiet time after the last change in the skills directory before it is reloaded. */
export const WATCH_DEBOUNCE_MS = 200;

export interface SkillRegistryOptions {
  /** The skills directory (relative paths resolve against the working directory). */
  dir: string;
  /** Where reload problems and watcher errors go; the registry never throws them at its owner. */
  log: (message: string) => void;
}

/** The inode of `path` when it is a directory (so a replaced directory is noticed), else undefined. */
function directoryInode(path: string): number | undefined {
  try {
    const info = statSync(path, { throwIfNoEntry: false });
    return info?.isDirectory() ? info.ino : undefined;
  } catch {
    return undefined;
  }
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * The skills of the skills directory, reloadable while requests read them. Readers always see one complete
 * set: a reload loads the whole directory first and then replaces the set in one assignment. Reloads run one
 * at a time, in the order they were asked for, so the last one reflects the directory's latest state.
 * The owner reloads it on SIGHUP (`reload()`) and/or keeps it current with `watch()`.
 */
export class SkillRegistry {
  readonly dir: string;
  readonly #log: (message: string) => void;
  #skills: ReadonlyMap<string, Skill> = new Map();
  #problems: readonly string[] = [];
  #queue: Promise<void> = Promise.resolve();

  constructor(options: SkillRegistryOptions) {
    this.dir = resolve(options.dir);
    this.#log = options.log;
  }

  /** A registry loaded once from `dir`. */
  static async create(dir: string, log: (message: string) => void): Promise<SkillRegistry> {
    const registry = new SkillRegistry({ dir, log });
    await registry.reload();
    return registry;
  }

  /** The skill with this id, if loaded. */
  get(id: string): Skill | undefined {
    return this.#skills.get(id);
  }

  /** All loaded skills, by id. */
  list(): Skill[] {
    return [...this.#skills.values()].sort((a, b) => compareCodeUnits(a.id, b.id));
  }

  /** Why folders of the directory were left out at the last reload. */
  problems(): readonly string[] {
    return this.#problems;
  }

  /**
   * Loads the directory again and swaps the new set in. Never rejects: a folder that is not a valid skill is
   * logged and left out; a directory that cannot be listed is logged and the previous set is kept.
   */
  reload(): Promise<void> {
    const next = this.#queue.then(() => this.#load());
    this.#queue = next;
    return next;
  }

  async #load(): Promise<void> {
    try {
      const { skills, problems } = await loadSkills(this.dir);
      this.#skills = skills;
      this.#problems = problems;
      for (const problem of problems) this.#log(`skills: ${problem}; not loaded`);
    } catch (error) {
      this.#log(
        `skills: cannot read ${this.dir}, keeping the ${this.#skills.size} loaded: ${messageOf(error)}`,
      );
    }
  }

  /**
   * Watches the directory (recursively where the platform can) and reloads it `WATCH_DEBOUNCE_MS` after
   * changes settle. While the directory does not exist, its parent is watched for it to appear; when it is
   * deleted or replaced, the watch moves accordingly. Errors are logged, never thrown. The watcher does not
   * keep the process alive. Returns the function that stops watching.
   */
  watch(): () => void {
    let watcher: FSWatcher | undefined;
    let watchedInode: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;

    const close = () => {
      watcher?.close();
      watcher = undefined;
      watchedInode = undefined;
    };
    const schedule = () => {
      if (stopped) return;
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => {
        timer = undefined;
        void this.reload().then(() => (stopped ? undefined : follow()));
      }, WATCH_DEBOUNCE_MS);
      timer.unref();
    };
    const open = (path: string, recursive: boolean): FSWatcher => {
      const opened = fsWatch(path, { recursive, persistent: false }, (_event, name) => {
        if (path === this.dir || name === null || String(name) === basename(this.dir)) schedule();
      });
      opened.on('error', (error) => {
        this.#log(`skills: watcher of ${path} failed: ${messageOf(error)}`);
        if (watcher === opened) close();
        schedule();
      });
      return opened;
    };
    const watchDir = (inode: number) => {
      try {
        watcher = open(this.dir, true);
      } catch {
        watcher = open(this.dir, false); // recursive watching is not available on this platform
      }
      watchedInode = inode;
    };
    /** Points the watcher at the directory when it exists, else at its parent. */
    const follow = () => {
      const inode = directoryInode(this.dir);
      if (stopped || (watcher !== undefined && watchedInode === inode)) return;
      close();
      try {
        if (inode !== undefined) watchDir(inode);
        else watcher = open(dirname(this.dir), false);
      } catch (error) {
        this.#log(`skills: cannot watch ${this.dir} (reload with SIGHUP instead): ${messageOf(error)}`);
      }
    };

    follow();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      close();
    };
  }
}
