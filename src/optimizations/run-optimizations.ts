import type { RequestKind } from '../codecs/request-kind.js';
import type { GatewaySettings } from '../gateway-settings/gateway-settings.js';
import type { JsonObject } from '../json/json.js';
import type { Scorer } from '../scoring/scorer.js';
import { type CompressionReport, compressHistory } from './compress-history.js';
import {
  countPaced,
  countRequestTokens,
  loadTokenCounter,
  memoizeCounter,
  type TextTokenCounter,
} from './count-tokens.js';
import { functionToolNames } from './function-tools.js';
import { type MediaReport, optimizeMedia } from './optimize-media.js';
import { pacer } from './pace.js';
import { selectTools, type ToolSelectionReport } from './select-tools.js';

export interface OptimizationDetails {
  media?: MediaReport;
  compression?: CompressionReport;
  tools?: ToolSelectionReport;
  /** Input tokens before and after the optimizations; absent when none ran. */
  tokens?: { before: number; after: number };
}

export interface OptimizationReport {
  /** Share of the input tokens the optimizations removed, in percent with two decimals; 0 when none ran. */
  optimizationPercentage: number;
  /** Function tools sent, in their original order (all of them when tool optimization is off). */
  loadedTools: string[];
  details: OptimizationDetails;
}

export interface RunOptimizationsOptions {
  /** The token counter; by default o200k_base, loaded on first use. */
  loadCounter?: () => Promise<TextTokenCounter>;
  /** The request's user turns carry their tool results (see `CompressionOptions`): Messages ingress. */
  toolResultsInUserTurn?: boolean;
}

/** `100 × removed / before`, rounded to two decimals; 0 for an empty request. */
export function removedPercentage(before: number, after: number): number {
  return before > 0 ? Math.round((10_000 * (before - after)) / before) / 100 : 0;
}

/**
 * The optimizations of one request, in their order: media first (a removed image no longer counts for
 * anything after it), then history compression (which judges what is left), then tool selection (which
 * keeps the tools the remaining conversation called). Each runs only when enabled in the request's
 * gateway settings. When none is enabled, nothing is tokenized: the request is returned as a copy with
 * `optimizationPercentage` 0, and the hot path pays nothing.
 */
export function runOptimizations<R extends JsonObject>(
  request: R,
  kind: RequestKind,
  settings: GatewaySettings,
  scorer: Scorer,
  options: RunOptimizationsOptions = {},
): Optimized<R> | Promise<Optimized<R>> {
  const compression = settings.chatHistoryCompression?.enabled ? settings.chatHistoryCompression : undefined;
  const tools = settings.toolOptimization?.enabled ? settings.toolOptimization : undefined;
  if (!settings.mediaOptimization && !compression && !tools) {
    // Answered at once.
    const report = { optimizationPercentage: 0, loadedTools: functionToolNames(request, kind), details: {} };
    return { request: { ...request }, report };
  }
  return optimize(request, kind, { settings, compression, tools }, scorer, options);
}

/** A request after its optimizations, and what they did. */
export interface Optimized<R> {
  request: R;
  report: OptimizationReport;
}

async function optimize<R extends JsonObject>(
  request: R,
  kind: RequestKind,
  enabled: {
    settings: GatewaySettings;
    compression: GatewaySettings['chatHistoryCompression'];
    tools: GatewaySettings['toolOptimization'];
  },
  scorer: Scorer,
  options: RunOptimizationsOptions,
): Promise<Optimized<R>> {
  const { settings, compression, tools } = enabled;
  const count = memoizeCounter(await (options.loadCounter ?? loadTokenCounter)());
  const pace = pacer();
  const before = await countPaced((counter) => countRequestTokens(request, kind, counter), count, pace);
  const details: OptimizationDetails = {};
  let current = request;
  if (settings.mediaOptimization) {
    const result = await optimizeMedia(current, kind, scorer);
    current = result.request;
    details.media = result.report;
  }
  if (compression) {
    const { toolResultsInUserTurn } = options;
    const result = await compressHistory(
      current,
      kind,
      { ...compression, toolResultsInUserTurn },
      scorer,
      pace,
    );
    current = result.request;
    details.compression = result.report;
  }
  if (tools) {
    const result = await selectTools(current, kind, tools, scorer, pace);
    current = result.request;
    details.tools = result.report;
  }
  const after = await countPaced((counter) => countRequestTokens(current, kind, counter), count, pace);
  details.tokens = { before, after };
  const report = {
    optimizationPercentage: removedPercentage(before, after),
    loadedTools: details.tools?.loadedTools ?? functionToolNames(current, kind),
    details,
  };
  return { request: current, report };
}
