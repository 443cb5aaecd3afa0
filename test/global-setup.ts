import { execFileSync } from 'node:child_process';

/** Builds dist/ once, for the tests that start the gateway as its own process (`node dist/main.js`). */
export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    stdio: 'inherit',
  });
}
