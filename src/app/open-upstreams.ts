import { bundledModels } from '../catalog/bundled-models.js';
import { buildCatalog } from '../catalog/catalog.js';
import { startDiscovery } from '../catalog/discovery-loop.js';
import { fetchModelList } from '../catalog/fetch-model-list.js';
import { createAdapters, supportedApis } from '../providers/create-adapters.js';
import { createUpstreamClient, createUpstreamDispatcher } from '../providers/shared/upstream-client.js';
import type { GatewayOptions } from './gateway-options.js';

/** The model catalog, the upstream connection pool and an adapter per provider; discovery started. */
export async function openUpstreams(options: GatewayOptions, log: (message: string) => void) {
  const { config } = options;
  const catalog = buildCatalog({
    config,
    bundled: bundledModels,
    vars: options.vars,
    supportedApis,
    warn: log,
  });
  const dispatcher =
    options.dispatcher ??
    createUpstreamDispatcher(config.server.maxUpstreamConnections ?? config.server.maxConnections);
  const upstreamLimits = {
    idleTimeoutMs: config.server.upstreamIdleTimeoutMs,
    maxResponseBytes: config.server.maxUpstreamResponseBytes,
  };
  const adapters = createAdapters(
    catalog.providers.values(),
    createUpstreamClient(dispatcher, upstreamLimits),
  );
  // Providers that list their own models are asked now (bounded by discovery.timeoutMs) and then regularly.
  const discovery = await startDiscovery({
    catalog,
    list: (provider, signal) => fetchModelList(dispatcher, provider, { ...config.discovery, signal }),
    log,
  });
  return { catalog, dispatcher, adapters, discovery };
}
