import { computeCostNano } from '../accounting/compute-cost.js';
import type { Usage } from '../accounting/usage.js';
import type { ResolvedEndpoint } from '../catalog/catalog.js';
import type { UsageMeta } from '../codecs/shared/usage-body.js';
import type { InferenceRun } from './run-inference.js';

/**
 * Settles the executor's usage of a finished request: cost from the serving endpoint's price, into the
 * tracker, and the usage block the answer carries. Also feeds the provider's health figures.
 */
export function account(run: InferenceRun, endpoint: ResolvedEndpoint, usage: Usage): UsageMeta {
  const { tracker } = run;
  tracker.usage = usage;
  tracker.costNano = computeCostNano(usage, endpoint.compiledPricing);
  const generationMs = tracker.generationMs();
  run.deps.health.observe(tracker.model, endpoint.provider, {
    ok: true,
    ttftMs: tracker.hasFirstToken ? tracker.elapsedMs() - (generationMs ?? 0) : undefined,
    outputTokens: usage.outputTokens,
    generationMs,
  });
  return {
    usage,
    costNano: tracker.totalCostNano,
    planningUsage: tracker.planningUsage,
    planningCostNano: tracker.planningCostNano,
  };
}
