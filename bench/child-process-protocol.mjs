// The small protocol between the benchmark and the helper processes it starts (fake upstream, pass-through
// proxies, load generator): flags in, one JSON line on stdout when ready, exit when the parent's pipe closes.
import { pathToFileURL } from 'node:url';

/** True when the module at `moduleUrl` is the script node was started with. */
export function isMain(moduleUrl) {
  return process.argv[1] !== undefined && moduleUrl === pathToFileURL(process.argv[1]).href;
}

/** Reads `--name=value` from the command line, or `fallback`. */
export function readFlag(name, fallback) {
  const prefix = `--${name}=`;
  const arg = process.argv.find((a) => a.startsWith(prefix));
  return arg === undefined ? fallback : arg.slice(prefix.length);
}

/** Tells the parent this process is ready, as one JSON line. */
export function printReady(info) {
  process.stdout.write(`${JSON.stringify({ ready: true, ...info })}\n`);
}

/** Exits when the parent closes our stdin: a helper must never outlive the benchmark, even one killed hard. */
export function exitWhenParentGoes() {
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  process.stdin.resume();
}
