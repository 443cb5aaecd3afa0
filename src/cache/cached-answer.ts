import { z } from 'zod';
import type { Usage } from '../accounting/usage.js';
import type { JsonObject } from '../json/json.js';

/**
 * A complete answer as the provider adapter gave it, in the gateway's canonical shape: a chat completion
 * (`chat`: also what the Messages ingress and translated Responses requests are served from), a Responses
 * object (`responses`, native Responses providers) or an embeddings list (`embeddings`). The endpoint's own
 * codec makes the client's answer from it, plain or streamed, exactly as from a provider's.
 */
export interface CachedAnswer {
  form: 'chat' | 'responses' | 'embeddings';
  /** The organization it belongs to (also in its key; checked again when read). */
  orgId: string;
  body: JsonObject;
  /** The usage the provider reported: a hit answers with the same token counts (and cost 0). */
  usage: Usage;
  /** What the original answer cost, nano-USD: the hit's record says this much was saved. */
  costNano: number;
  /** The provider that made it. */
  provider: string;
  /** The model that made it (with `models` fallbacks, not always the first one); absent in older entries. */
  model?: string;
  /** Parameters the provider could not take: the hit reports them as the miss did. */
  warnings: string[];
  /** False when the answer carries members a replayed stream could not carry: it then answers plain requests only. */
  streamable: boolean;
}

const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

const usageSchema = z.object({
  inputTokens: count,
  outputTokens: count,
  cachedInputTokens: count,
  cacheWriteTokens: count,
  reasoningTokens: count,
  images: count,
  webSearchCalls: count,
});

const cachedAnswerSchema = z.object({
  form: z.enum(['chat', 'responses', 'embeddings']),
  orgId: z.string(),
  body: z.record(z.string(), z.unknown()),
  usage: usageSchema,
  costNano: count,
  provider: z.string(),
  model: z.string().max(500).optional(),
  warnings: z.array(z.string()).max(100),
  streamable: z.boolean(),
});

/**
 * The stored text of an answer whose body was serialised when it was captured (before the endpoint's codec
 * could change the objects it shares with the answer).
 */
export function encodeAnswer(answer: Omit<CachedAnswer, 'body'>, bodyJson: string): string {
  const { form, orgId, usage, costNano, provider, model, warnings, streamable } = answer;
  const head = JSON.stringify({ form, orgId, usage, costNano, provider, model, warnings, streamable });
  return `${head.slice(0, -1)},"body":${bodyJson}}`;
}

/**
 * An answer read back from a store (Redis is shared, so what it holds is checked like any outside input):
 * undefined when the text is not a well-formed answer of this organization.
 */
export function decodeAnswer(text: string, orgId: string): CachedAnswer | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = cachedAnswerSchema.safeParse(value);
  if (!parsed.success || parsed.data.orgId !== orgId) return undefined;
  return parsed.data;
}
