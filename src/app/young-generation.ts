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
