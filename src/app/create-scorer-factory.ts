import { randomUUID } from 'node:crypto';
import { computeCostNano } from '../accounting/compute-cost.js';
import type { Catalog, ResolvedEndpoint } from '../catalog/catalog.js';
import type { ScoringConfig } from '../config/config-schema.js';
import { ConfigError } from '../config/load-config.js';
import { arrayMember, isRecord, recordMember, stringMember } from '../json/json.js';
import type { ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.js';
import { createLocalScorerFactory } from '../scoring/local-scorer.js';
import { createModelScorer, type EmbedFunction, type JudgeFunction } from '../scoring/model-scorer.js';
import type { ScorerFactory, ScorerProviderRules } from '../scoring/scorer.js';

export interface ScorerWiring {
  scoring: ScoringConfig;
  catalog: Catalog;
  adapters: ReadonlyMap<string, ProviderAdapter>;
  timeoutMs: number;
}

/**
 * The scorer factory the config asks for. `model`: an embeddings model and/or a judge model, called through
 * the gateway's own providers (the first serving endpoint that the request's provider rules allow: a
 * `zdr` request's prompt never goes to a provider that keeps data), with the local scorer for anything
 * without a model, without an allowed provider, or whose call fails. Checked at start-up: a named model
 * that cannot serve is a config error.
 */
export function createScorerFactory(wiring: ScorerWiring): ScorerFactory {
  const local = createLocalScorerFactory();
  if (wiring.scoring.scorer === 'local') return local;
  const { embeddingModel, judgeModel } = wiring.scoring;
  if (!embeddingModel && !judgeModel) {
    throw new ConfigError('Invalid config: scoring: scorer "model" needs embeddingModel and/or judgeModel');
  }
  const embedTargets = embeddingModel
    ? targets(wiring, embeddingModel, 'embeddings', 'scoring.embeddingModel')
    : [];
  const judgeTargets = judgeModel ? targets(wiring, judgeModel, 'chat', 'scoring.judgeModel') : [];
  return (rules) => {
    const embedTarget = embedTargets.find((one) => allowedBy(rules, one.endpoint));
    const judgeTarget = judgeTargets.find((one) => allowedBy(rules, one.endpoint));
    return createModelScorer({
      embed: embedTarget && embedVia(embedTarget, wiring.timeoutMs),
      judge: judgeTarget && judgeVia(judgeTarget, wiring.timeoutMs),
      fallback: local(),
    });
  };
}

/** Whether a request's provider rules let its text go to this endpoint's provider. */
function allowedBy(rules: ScorerProviderRules | undefined, endpoint: ResolvedEndpoint): boolean {
  if (!rules) return true;
  if (rules.zdr && !endpoint.providerConfig.zdr) return false;
  if (rules.only && !rules.only.includes(endpoint.provider)) return false;
  return !rules.ignore?.includes(endpoint.provider);
}

interface Target {
  endpoint: ResolvedEndpoint;
  adapter: ProviderAdapter;
}

/** The endpoints that serve a scorer model for `kind`, in catalog order; none is a config error. */
function targets(wiring: ScorerWiring, slug: string, kind: 'embeddings' | 'chat', path: string): Target[] {
  const model = wiring.catalog.get(slug);
  const found: Target[] = [];
  for (const endpoint of model?.activeEndpoints ?? []) {
    const adapter = wiring.adapters.get(endpoint.provider);
    if (!adapter || !endpoint.providerConfig.supportsSet.has(kind)) continue;
    if (kind === 'embeddings' && !adapter.embed) continue;
    found.push({ endpoint, adapter });
  }
  if (found.length === 0) {
    throw new ConfigError(`Invalid config: ${path}: no configured provider serves "${slug}" for ${kind}`);
  }
  return found;
}

function call(endpoint: ResolvedEndpoint, timeoutMs: number): UpstreamCall {
  return {
    provider: endpoint.providerConfig,
    upstreamModel: endpoint.model,
    signal: AbortSignal.timeout(timeoutMs),
    timeoutMs,
    requestId: `req_scorer_${randomUUID()}`,
    maxOutputTokens: endpoint.maxOutputTokens,
    rulesOf: endpoint.rulesOf,
  };
}

function embedVia({ endpoint, adapter }: Target, timeoutMs: number): EmbedFunction {
  return async (texts) => {
    if (!adapter.embed) throw new Error('no embeddings');
    const result = await adapter.embed({ model: endpoint.model, input: texts }, call(endpoint, timeoutMs));
    const vectors = (arrayMember(result.body, 'data') ?? []).map((item) =>
      isRecord(item) && Array.isArray(item.embedding)
        ? item.embedding.filter((value): value is number => typeof value === 'number')
        : [],
    );
    return { vectors, costNano: computeCostNano(result.usage, endpoint.compiledPricing) };
  };
}

function judgeVia({ endpoint, adapter }: Target, timeoutMs: number): JudgeFunction {
  return async (instruction, input) => {
    const body = {
      model: endpoint.model,
      messages: [
        { role: 'system', content: instruction },
        { role: 'user', content: input },
      ],
      max_tokens: 16,
      temperature: 0,
    };
    const result = await adapter.chat(body, call(endpoint, timeoutMs));
    const message = recordMember(arrayMember(result.body, 'choices')?.[0], 'message');
    return {
      text: stringMember(message, 'content') ?? '',
      costNano: computeCostNano(result.usage, endpoint.compiledPricing),
    };
  };
}
