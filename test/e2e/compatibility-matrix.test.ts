import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { noteFor } from '../compat/cell-notes.js';
import { FEATURES, labelOf } from '../compat/features.js';
import { type IngressDriver, ingressDrivers } from '../compat/ingresses.js';
import { type Matrix, startMatrix } from '../compat/providers.js';
import { INGRESSES, type Outcome, PROVIDERS } from '../compat/scenario.js';
import { expectUpstream } from '../compat/wires.js';

/**
 * The conformance matrix: ingress × provider × feature, one test per cell, against ONE gateway in front of
 * four providers on fake upstreams. Each test checks what the client got AND what the upstream received in
 * its own wire format. Titles carry a parseable tag, `[cell <ingress>|<provider>|<feature>]`, then
 * `(warns)`, `(bug)` or `(n/a)` where the cell is not a plain pass, the row label, and ` — ` the reason.
 * `npm run compat` runs this file and writes docs/compatibility.md from the results.
 */

let matrix: Matrix;
let drivers: Record<(typeof INGRESSES)[number], IngressDriver>;

beforeAll(async () => {
  matrix = await startMatrix();
  drivers = ingressDrivers(matrix.baseURL, matrix.key);
});
afterAll(async () => matrix?.stop());
afterEach(() => matrix.reset());

describe.each(INGRESSES)('%s ingress', (ingress) => {
  for (const feature of FEATURES) {
    for (const providerId of PROVIDERS) {
      const note = noteFor(ingress, providerId, feature.id);
      const marker = note ? ` (${note.kind})` : '';
      const reason = note ? ` — ${note.why}` : '';
      const title = `[cell ${ingress}|${providerId}|${feature.id}]${marker} ${labelOf(feature, ingress)}${reason}`;
      if (note?.kind === 'n/a') {
        it.skip(title, () => undefined);
        continue;
      }
      const test = note?.kind === 'bug' ? it.fails : it;
      test(title, async () => {
        const provider = matrix.providers[providerId];
        const driver = drivers[ingress];
        feature.prepare?.(provider);
        let outcome: Outcome;
        let callId = '';
        if (feature.run) ({ outcome, callId } = await feature.run(driver, provider));
        else outcome = await driver.run(provider.model, feature.scenario);

        feature.expectClient(outcome, { ingress, provider, driver });
        if (note?.kind === 'warns') expect(outcome.warnings).toMatch(note.warning);
        else expect(outcome.warnings).toBeNull();
        expectUpstream(provider.wire(ingress), feature.id, provider.lastSent(), {
          upstreamModel: provider.upstreamModel,
          stream: feature.scenario.stream === true,
          callId,
          warns: note?.kind === 'warns',
        });
      });
    }
  }
});
