import type { AppDeps } from '../../app/app-deps.js';

/** Shown instead of a secret. */
export const REDACTED = '[redacted]';

/** Member names whose values are secrets (provider keys, organization keys, tokens, passwords, headers). */
const SECRET_MEMBER = /^(api_?keys?|token|secret|password|headers|authorization)$/i;

/** A URL with its password (and any user name) replaced, or the text unchanged when it is not a URL. */
export function redactUrl(text: string): string {
  if (!URL.canParse(text)) return text;
  const url = new URL(text);
  if (url.password === '' && url.username === '') return text;
  if (url.password !== '') url.password = REDACTED;
  return url.href;
}

/** A copy of a JSON-like value with every secret member redacted and passwords cut out of URLs. */
export function redactSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactSecrets);
  if (typeof value === 'string') return redactUrl(value);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([name, member]) => [
      name,
      SECRET_MEMBER.test(name) && member !== undefined && member !== null ? REDACTED : redactSecrets(member),
    ]),
  );
}

/** Where the gateway keeps its state, as the configuration view shows it (credentials cut out). */
export interface RuntimeSettings {
  databaseUrl: string;
  redisUrl: string | undefined;
}

/**
 * The effective configuration: the parsed config file with its defaults, secrets redacted (provider keys and
 * headers, organizations' bootstrap keys, the metrics token), and where state lives (passwords cut out of the
 * database and Redis URLs). The admin token itself is never shown, only that it is set.
 */
export function configView(deps: AppDeps, runtime: RuntimeSettings) {
  return {
    config: redactSecrets(deps.config),
    environment: {
      databaseUrl: redactUrl(runtime.databaseUrl),
      redisUrl: runtime.redisUrl === undefined ? null : redactUrl(runtime.redisUrl),
      adminToken: REDACTED,
    },
  };
}

/**
 * The effective catalog: every model the gateway can serve, with its serving providers, their upstream model
 * names and prices, and the providers themselves (credentials shown only as present or not).
 */
export function catalogView(deps: AppDeps) {
  const models = deps.catalog.list().map((model) => ({
    id: model.id,
    name: model.name,
    capabilities: model.capabilities,
    api_compatibility: model.api_compatibility,
    context_window: model.context_window ?? null,
    max_tokens: model.max_tokens ?? null,
    endpoints: model.activeEndpoints.map((endpoint) => ({
      provider: endpoint.provider,
      model: endpoint.model,
      pricing: endpoint.pricing,
    })),
  }));
  const providers = [...deps.catalog.providers.values()].map((provider) => ({
    id: provider.id,
    api: provider.api,
    baseUrl: redactUrl(provider.baseUrl),
    zdr: provider.zdr,
    supports: [...provider.supportsSet],
    apiKey: provider.apiKey ? REDACTED : null,
  }));
  return { data: models, providers, next_cursor: null };
}
