import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';

/** The Chromium the browser tests drive: `CHROMIUM_PATH`, else Debian's `/usr/bin/chromium`; undefined when absent. */
export function findChromium(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium'];
  return candidates.find((path): path is string => path !== undefined && path !== '' && existsSync(path));
}

/** Where the tests save a screenshot of every page (git-ignored). */
export const SCREENSHOT_DIR = join(process.cwd(), 'test-output', 'screenshots');

/** A headless Chromium (no sandbox: CI runs as root in a container). */
export async function launchChromium(executablePath: string): Promise<Browser> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
}

/** What a page did that it must not: script errors, CSP violations, console errors, dialogs (alert). */
export interface PageProblems {
  errors: string[];
  dialogs: string[];
}

/** Watches a page for script errors, console errors (CSP violations are reported there) and dialogs. */
export function watchProblems(page: Page): PageProblems {
  const problems: PageProblems = { errors: [], dialogs: [] };
  page.on('pageerror', (error) => problems.errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.errors.push(`console: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    problems.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    // A confirm() of the dashboard (revoke) is accepted; an alert would be a script that should not run.
    void (dialog.type() === 'confirm' ? dialog.accept() : dialog.dismiss());
  });
  return problems;
}

/** Saves a full-page screenshot as `<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
}

/** Polls `check` until it returns a value (not undefined), failing after `timeoutMs`: waits on a condition. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
