import type { IngressId, ProviderId } from './scenario.js';

/**
 * Cells that are not a plain pass:
 * - `warns`: supported with a documented degradation; the test asserts the `x-gateway-warnings` text.
 * - `bug`: a gateway bug; the test asserts the correct behaviour under `it.fails` until it is fixed.
 * - `n/a`: the ingress has no such parameter; the test is registered as skipped, with the reason.
 * Keys are `ingress|provider|feature`; `*` as the provider matches every provider.
 */
export type CellNote =
  | { kind: 'warns'; warning: RegExp; why: string }
  | { kind: 'bug'; why: string }
  | { kind: 'n/a'; why: string };

// Gateway bugs: each test asserts the correct behaviour and is expected to fail until the bug is fixed.
// None are open.

export const CELL_NOTES: Record<string, CellNote> = {
  'responses|*|stop': { kind: 'n/a', why: 'the Responses API has no stop sequences' },
};

export function noteFor(ingress: IngressId, provider: ProviderId, feature: string): CellNote | undefined {
  return CELL_NOTES[`${ingress}|${provider}|${feature}`] ?? CELL_NOTES[`${ingress}|*|${feature}`];
}
