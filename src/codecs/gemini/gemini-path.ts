/** The Gemini API methods the ingress serves, as the last segment of the path (`…/{model}:{method}`). */
export const GEMINI_METHODS = [
  'generateContent',
  'streamGenerateContent',
  'countTokens',
  'embedContent',
  'batchEmbedContents',
] as const;

const METHOD_SUFFIX = new RegExp(`:(${GEMINI_METHODS.join('|')})$`);

/**
 * True for the paths of the Gemini ingress, whose errors (authentication included) take Google's shape and
 * where the key may come as `?key=`: everything under `/v1beta/`, and `/v1/…:{method}` for the methods
 * above (the `/v1` forms newer `@google/genai` releases call by default).
 */
export function isGeminiPath(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0] ?? '';
  return path.startsWith('/v1beta/') || (path.startsWith('/v1/') && METHOD_SUFFIX.test(path));
}

/**
 * The model slug of a path's `{model}` (already percent-decoded by the router): Google's resource name
 * `models/<slug>` as @google/genai writes it, or the bare slug as `@ai-sdk/google` writes a model id that
 * contains `/`. So `models/acme/chat-large`, `models/acme%2Fchat-large` and `acme/chat-large` all name
 * `acme/chat-large`.
 */
export function slugOfPath(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

/** The `key` query parameter of a Gemini path (Google accepts the API key there), if any. */
export function queryKey(url: string | undefined): string | undefined {
  if (!isGeminiPath(url)) return undefined;
  const query = (url ?? '').split('?')[1];
  if (query === undefined) return undefined;
  const key = new URLSearchParams(query).get('key');
  return key === null || key === '' ? undefined : key;
}

/** Whether a `streamGenerateContent` request asked for server-sent events (`alt=sse`). */
export function wantsSse(url: string | undefined): boolean {
  const query = (url ?? '').split('?')[1] ?? '';
  return new URLSearchParams(query).get('alt') === 'sse';
}
