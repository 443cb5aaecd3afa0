import { randomUUID } from 'node:crypto';
import { computeCostNano } from '../accounting/compute-cost.js';
import type { Catalog, ResolvedEndpoint } from '../catalog/catalog.js';
import type { ScoringConfig } from '../config/config-schema.js';
import { ConfigError } from '../config/load-config.js';
import { arrayMember, isRecord, recordMember, stringMember } from '../json/json.js';
import type { ProviderAdapter, UpstreamCall } from '../providers/provider-adapter.js';
import { createLocalScorerFactory } from '../scoring/local-scorer.js';
import { createModelScorer, type EmbedFunction, type JudgeFunction } from '../scoring/model-scorer.js';
import type { ScorerFactory } from '../scoring/scorer.js';

export interface ScorerWiring {
  scoring: ScoringConfig;
  catalog: Catalog;
  adapters: ReadonlyMap<string, ProviderAdapter>;
  timeoutMs: number;
}

/**
 * The scorer factory the config asks for. `model`: an embeddings model and/or a judge model, called through
 * the gateway's own providers (first serving endpoint), with the local scorer for anything without a model
 * or whose call fails. Checked at start-up: a named model that cannot serve is a config error.
 */
export function createScorerFactory(wiring: ScorerWiring): ScorerFactory {
  const local = createLocalScorerFactory();
  if (wiring.scoring.scorer === 'local') return local;
  const { embeddingModel, judgeModel } = wiring.scoring;
  if (!embeddingModel && !judgeModel) {
    throw new ConfigError('Invalid config: scoring: scorer "model" needs embeddingModel and/or judgeModel');
  }
  const embedTarget = embeddingModel
    ? target(wiring, embeddingModel, 'embeddings', 'scoring.embeddingModel')
    : undefined;
  const judgeTarget = judgeModel ? target(wiring, judgeModel, 'chat', 'scoring.judgeModel') : undefined;
  return () =>
    createModelScorer({
      embed: embedTarget && embedVia(embedTarget, wiring.timeoutMs),
      judge: judgeTarget && judgeVia(judgeTarget, wiring.timeoutMs),
      fallback: local(),
    });
}

interface Target {
  endpoint: ResolvedEndpoint;
  adapter: ProviderAdapter;
}

function target(wiring: ScorerWiring, slug: string, kind: 'embeddings' | 'chat', path: string): Target {
  const model = wiring.catalog.get(slug);
  for (const endpoint of model?.activeEndpoints ?? []) {
    const adapter = wiring.adapters.get(endpoint.provider);
    if (!adapter || !endpoint.providerConfig.supportsSet.has(kind)) continue;
    if (kind === 'embeddings' && !adapter.embed) continue;
    return { endpoint, adapter };
  }
  throw new ConfigError(`Invalid config: ${path}: no configured provider serves "${slug}" for ${kind}`);
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
