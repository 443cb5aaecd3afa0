import type { ProviderConfig } from '../../config/catalog-schema.js';
import { percentDecoded } from '../../http/percent-decode.js';

/** What of a provider's config may hold credentials. */
export type ProviderCredentials = Pick<ProviderConfig, 'apiKey' | 'headers' | 'baseUrl'>;

/** Header and query parameter names whose values are credentials (`x-api-key`, `cf-aig-authorization`, …). */
const CREDENTIAL_NAME = /auth|key|token|secret|passw|cookie|credential|signature/i;

/**
 * The credentials a provider is configured with, for scrubbing its error text (scrub-upstream-text.ts): its
 * `apiKey`, the values of its configured headers and base URL query parameters whose names say they are
 * credentials, and the password of its base URL. Other headers (a version, a content type) are not secrets,
 * and a vendor message naming them keeps them. Computed when an error needs it, never per answer.
 */
export function providerSecrets(provider: ProviderCredentials): string[] {
  const secrets = provider.apiKey ? [provider.apiKey] : [];
  for (const [name, value] of Object.entries(provider.headers ?? {}))
    if (CREDENTIAL_NAME.test(name)) secrets.push(value);
  const url = URL.canParse(provider.baseUrl) ? new URL(provider.baseUrl) : undefined;
  if (url?.password) secrets.push(url.password, percentDecoded(url.password));
  for (const [name, value] of url?.searchParams ?? []) if (CREDENTIAL_NAME.test(name)) secrets.push(value);
  return secrets;
}
