// Entry point of the benchmark: `npm run bench` (builds the gateway first) or `node bench/run.mjs [options]`.
// See bench/README.md. Everything runs on 127.0.0.1; every child process is killed on the way out.
import { runBenchmark } from './benchmark.mjs';
import { parseOptions, USAGE } from './options.mjs';
import { runSoak } from './soak.mjs';
import { TARGET_NAMES } from './targets.mjs';

const log = (message) => process.stderr.write(`[bench] ${message}\n`);

async function main() {
  let options;
  try {
    options = parseOptions(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (options.mode === 'soak') {
    const names = options.targets ?? ['gateway', 'portkey'];
    const { markdown, exitCode } = await runSoak({ ...options, names, log });
    process.stdout.write(markdown);
    return exitCode;
  }
  const requested = options.targets ?? TARGET_NAMES;
  const names = TARGET_NAMES.filter((n) => n === 'direct' || requested.includes(n));
  const { markdown, paths } = await runBenchmark({ ...options, names, log });
  process.stdout.write(markdown);
  log(`wrote ${paths.md} and ${paths.json}`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`[bench] failed: ${error.stack ?? error}\n`);
    process.exit(1);
  },
);
