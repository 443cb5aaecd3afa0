import { setFlagsFromString } from 'node:v8';

/**
 * V8's default growth factor of its young generation: a scavenge that finds more survivors than it holds
 * doubles it, up to its maximum (16 MB per semi-space on a 64-bit machine).
 */
const DEFAULT_GROWTH_FACTOR = 2;

/**
 * Keeps V8's young generation at its initial size while the gateway parses and loads its modules and config
 * (`main.ts` calls it before loading anything else). Loading keeps almost everything it allocates (compiled
 * code, schemas, the catalog), so its scavenges find many survivors and V8 would double the young generation
 * to its maximum: 16 MB of semi-space that a gateway at rest then keeps committed, about a tenth of its
 * resident memory. V8 reads the flag at each growth, so setting it at run time takes effect.
 */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * Lets the young generation grow as V8 would by default, once the gateway listens: under load it reaches its
 * maximum within a few scavenges, as without the hold.
 */
export function releaseYoungGeneration(): void {
  setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
}

/** The semi-space maximum, MB, that `npm start` gives V8: Node 20's and 22's own on a 64-bit machine. */
export const START_SEMI_SPACE_MB = 16;

const SEMI_SPACE_FLAG = /^--max[-_]semi[-_]space[-_]size(?:=(.*))?$/;

/**
 * The maximum of V8's semi-spaces, MB, that Node was given (`NODE_OPTIONS`, then the command line, which V8
 * reads after it; the last one counts; either spelling, `=value` or the value as the next argument), or
 * undefined when none was: V8 then sizes them itself.
 */
export function givenSemiSpaceMb(execArgv: readonly string[], nodeOptions: string): number | undefined {
  const args = [...nodeOptions.split(/\s+/), ...execArgv];
  let given: number | undefined;
  for (const [i, arg] of args.entries()) {
    const match = SEMI_SPACE_FLAG.exec(arg);
    if (match) given = Number(match[1] ?? args[i + 1]);
  }
  return given;
}

/**
 * A start-up warning for a gateway on V8 13 or later (Node 24) that was started without
 * `--max-semi-space-size`: V8 13 sizes its young generation from the heap limit, up to 64 MB per semi-space
 * (a 128 MB young generation) on a machine of a few GB, where Node 20 and 22 stop at 16 MB, and the gateway
 * then holds about 100 MB more under load. `npm start` passes the flag; undefined when it was given
 * (`execArgv` or `NODE_OPTIONS`, either spelling) or V8 is older.
 */
export function youngGenerationWarning(
  v8Version: string,
  execArgv: readonly string[],
  nodeOptions: string,
): string | undefined {
  if (Number.parseInt(v8Version, 10) < 13 || givenSemiSpaceMb(execArgv, nodeOptions) !== undefined)
    return undefined;
  return (
    `V8 ${v8Version} lets its young generation grow to several times Node 20's, about 100 MB more memory ` +
    `under load: start the gateway with NODE_OPTIONS=--max-semi-space-size=${START_SEMI_SPACE_MB}, as npm start does`
  );
}
