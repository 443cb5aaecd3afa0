import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Builds dist/ once, for the tests that start the gateway as its own process (`node dist/main.js`), and gives
 * the run a temporary directory of its own (`TMPDIR`, which the test processes and every process they start
 * inherit), removed when the run ends: the directories the tests make (journals, skill sources, databases,
 * gateway configs) do not pile up in the machine's `/tmp` run after run.
 */
export default function setup(): () => void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
  const previous = process.env.TMPDIR;
  const runDir = mkdtempSync(join(tmpdir(), 'gateway-tests-'));
  // Open to every user as /tmp is (sticky): PostgreSQL's tools run as their own user inside it.
  chmodSync(runDir, 0o1777);
  process.env.TMPDIR = runDir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(runDir, { recursive: true, force: true });
  };
}
