/**
 * How long a client should wait before it tries again: `retry-after` in whole seconds (rounded up) and
 * `retry-after-ms` in milliseconds, which the OpenAI and Anthropic SDKs read first (a rate limit of 600 a
 * minute frees a request after 100 ms, where whole seconds would make the client wait 1 s).
 */
export function retryAfterHeaders(ms: number): Record<string, string> {
  const exact = Math.max(0, Math.ceil(ms));
  return { 'retry-after': String(Math.ceil(exact / 1000)), 'retry-after-ms': String(exact) };
}
