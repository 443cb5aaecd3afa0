// Command-line options of `node bench/run.mjs` and the settings of each mode.
import { fileURLToPath } from 'node:url';
import { TARGET_NAMES } from './targets.mjs';

const DEFAULT_OUT = fileURLToPath(new URL('results/', import.meta.url));

export const USAGE = `Usage: node bench/run.mjs [options]   (npm run bench -- [options] builds first)

  --quick                 about one minute: fewer requests, one 1 s throughput run each, 10 s warm-up
  --targets=a,b,…         any of ${TARGET_NAMES.join(',')} (default: all; direct is always added)
  --out=DIR               where <timestamp>.md and .json go (default bench/results)
  --warm=SECONDS          warm-up under load before measuring (default 20, quick 10)
  --reps=N --duration=S   throughput repetitions and seconds per run (default 3 × 2 s; paced streams
                          run for 5 s each, quick 2 s, whatever --duration says)
  --soak[=MINUTES]        soak mode instead (default 5 min): constant load on gateway and Portkey (or
                          --targets), RSS every 10 s, exit 1 if memory keeps growing
  --no-pin                do not pin processes to CPUs with taskset
  --cpu-prof              write a V8 CPU profile of the gateway (slows it: use for hot spots, not for
                          the table)
  --help`;

const FULL = {
  warmSeconds: 20,
  latencyPlan: {
    chat: { count: 1000, batch: 25, warmup: 100 },
    stream: { count: 500, batch: 20, warmup: 50 },
    'stream-long': { count: 300, batch: 20, warmup: 30 },
    embed: { count: 500, batch: 20, warmup: 50 },
    big: { count: 200, batch: 10, warmup: 20 },
  },
  throughputKinds: ['chat', 'stream', 'stream-long', 'embed'],
  concurrencies: [16, 64],
  reps: 3,
  duration: 2,
  /** Seconds per run of paced streams (half a second each): enough that the streams cut at the end count little. */
  pacedDuration: 5,
};

const QUICK = {
  warmSeconds: 10,
  latencyPlan: {
    chat: { count: 300, batch: 25, warmup: 50 },
    stream: { count: 150, batch: 15, warmup: 20 },
    'stream-long': { count: 100, batch: 10, warmup: 10 },
    embed: { count: 150, batch: 15, warmup: 20 },
    big: { count: 12, batch: 3, warmup: 2 },
  },
  throughputKinds: ['chat', 'stream', 'stream-long', 'embed'],
  concurrencies: [16, 64],
  reps: 1,
  duration: 1,
  pacedDuration: 2,
};

function positive(value, flag) {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number, got "${value}"`);
  return n;
}

/** Parses argv into `{ mode, targets, outDir, pin, settings, soakMinutes }`; throws on an unknown flag. */
export function parseOptions(argv) {
  const flags = new Map();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unexpected argument "${arg}"\n\n${USAGE}`);
    flags.set(match[1], match[2] ?? true);
  }
  const known = ['quick', 'targets', 'out', 'warm', 'reps', 'duration', 'soak', 'no-pin', 'cpu-prof', 'help'];
  for (const name of flags.keys()) {
    if (!known.includes(name)) throw new Error(`unknown option --${name}\n\n${USAGE}`);
  }
  const quick = flags.has('quick');
  const settings = structuredClone(quick ? QUICK : FULL);
  if (flags.has('warm')) settings.warmSeconds = positive(flags.get('warm'), '--warm');
  if (flags.has('reps')) settings.reps = Math.round(positive(flags.get('reps'), '--reps'));
  if (flags.has('duration')) settings.duration = Math.round(positive(flags.get('duration'), '--duration'));
  const soak = flags.get('soak');
  const soakMinutes = soak === undefined ? null : soak === true ? 5 : positive(soak, '--soak');
  const requested =
    typeof flags.get('targets') === 'string' ? flags.get('targets').split(',').filter(Boolean) : null;
  for (const name of requested ?? []) {
    if (!TARGET_NAMES.includes(name))
      throw new Error(`unknown target "${name}" (known: ${TARGET_NAMES.join(', ')})`);
  }
  return {
    help: flags.has('help'),
    mode: soakMinutes !== null ? 'soak' : quick ? 'quick' : 'full',
    targets: requested,
    outDir: typeof flags.get('out') === 'string' ? flags.get('out') : DEFAULT_OUT,
    pin: !flags.has('no-pin'),
    cpuProf: flags.has('cpu-prof'),
    settings,
    soakMinutes,
  };
}
