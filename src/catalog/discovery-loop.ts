import type { Catalog, ResolvedProvider } from './catalog.js';
import { type DiscoveredModel, sameModels } from './discovered-models.js';

/** Seconds between two listings of a provider that sets no `discoverIntervalSeconds`. */
export const DEFAULT_DISCOVER_INTERVAL_SECONDS = 300;

export interface DiscoveryOptions {
  catalog: Catalog;
  /** One listing of a provider's models. */
  list: (
    provider: ResolvedProvider,
    signal: AbortSignal,
  ) => Promise<{ models: DiscoveredModel[]; truncated: boolean }>;
  log: (message: string) => void;
}

/** Discovery under way: stopped (timers cleared, a listing in flight abandoned) on shutdown. */
export interface Discovery {
  stop(): void;
}

/**
 * Lists the models of every discovering provider now (resolving when each first listing ended, well or not),
 * then again every `discoverIntervalSeconds` on timers that never keep the process alive. A failed listing
 * keeps the last known list and is logged once, when the provider starts failing (and once when it works
 * again), never per request.
 */
export async function startDiscovery(options: DiscoveryOptions): Promise<Discovery> {
  const controller = new AbortController();
  const timers = new Set<NodeJS.Timeout>();
  const providers = options.catalog.discovering();
  const loop = async (provider: ResolvedProvider, state: { failing: boolean; truncated: boolean }) => {
    await listOnce(options, provider, state, controller.signal);
    if (controller.signal.aborted) return;
    const seconds = provider.discoverIntervalSeconds ?? DEFAULT_DISCOVER_INTERVAL_SECONDS;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void loop(provider, state);
    }, seconds * 1000);
    timer.unref();
    timers.add(timer);
  };
  await Promise.all(providers.map((provider) => loop(provider, { failing: false, truncated: false })));
  return {
    stop() {
      controller.abort();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

async function listOnce(
  options: DiscoveryOptions,
  provider: ResolvedProvider,
  state: { failing: boolean; truncated: boolean },
  signal: AbortSignal,
): Promise<void> {
  const { catalog, log } = options;
  try {
    const { models, truncated } = await options.list(provider, signal);
    if (truncated && !state.truncated) {
      log(
        `model discovery of provider ${provider.id}: more models than discovery.maxModels; kept the first ${models.length}`,
      );
    }
    state.truncated = truncated;
    if (!sameModels(catalog.discoveredOn(provider.id), models)) catalog.setDiscovered(provider.id, models);
    if (state.failing)
      log(`model discovery of provider ${provider.id} works again (${models.length} models)`);
    state.failing = false;
  } catch (error) {
    if (signal.aborted || state.failing) return;
    state.failing = true;
    const known = catalog.discoveredOn(provider.id)?.length ?? 0;
    const reason = error instanceof Error ? error.message : String(error);
    log(
      `model discovery of provider ${provider.id} failed (${reason}); keeping the ${known} models it listed before`,
    );
  }
}
