// The two modules of undici the gateway loads on their own (see providers/shared/undici-parts.ts), typed as the
// package's own exports of the same classes.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';

  const AgentClass: typeof Agent;
  export default AgentClass;
}

declare module 'undici/lib/core/errors.js' {
  import type { errors } from 'undici';

  const undiciErrors: typeof errors;
  export default undiciErrors;
}

declare module 'undici/lib/api/index.js' {
  /** `request`, `stream`, `pipeline`, `upgrade` and `connect`, as methods of a dispatcher. */
  const api: Record<string, (...args: unknown[]) => unknown>;
  export default api;
}

declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type { Dispatcher } from 'undici';

  const DispatcherClass: typeof Dispatcher;
  export default DispatcherClass;
}
