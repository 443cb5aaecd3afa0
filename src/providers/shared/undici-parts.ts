import requestApi from 'undici/lib/api/index.js';
import undiciErrors from 'undici/lib/core/errors.js';
import AgentClass from 'undici/lib/dispatcher/agent.js';
import DispatcherClass from 'undici/lib/dispatcher/dispatcher.js';

/**
 * The parts of undici the gateway uses (the keep-alive `Agent`, its error classes, and the `request` API of
 * a dispatcher), loaded from their own modules: `import 'undici'` loads the whole library (fetch, WebSocket,
 * EventSource, caches, mocks, proxies), about 6 MB of resident memory that a gateway never uses (measured in
 * README "Memory"). The modules are the very ones the package exports (a test checks it, so an upgrade that
 * moves them fails there); the version is pinned by the lockfile.
 */
export const Agent = AgentClass;
export type Agent = InstanceType<typeof AgentClass>;
export const errors = undiciErrors;

// What the package's entry does when it loads: every dispatcher gets `request`, `stream`, `pipeline`,
// `upgrade` and `connect` (used by the OTLP exporter and the model-list discovery; upstream calls use
// `dispatch`). The same functions, so loading the package as well changes nothing.
Object.assign(DispatcherClass.prototype, requestApi);
