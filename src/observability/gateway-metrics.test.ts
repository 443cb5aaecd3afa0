import { describe, expect, it } from 'vitest';
import type { GenerationRecord } from '../records/generation-record.js';
import { GatewayMetrics, type MetricsSources } from './gateway-metrics.js';

const sources: MetricsSources = {
  pendingRecords: () => 3,
  writtenRecords: () => 40,
  refusedRecords: () => 0,
  droppedLogLines: () => 7,
  dependencies: async () => ({ store: { ok: true }, redis: { ok: false, error: 'down' } }),
};

const record = {
  genId: 'gen_1',
  orgId: 'acme',
  apiKeyId: 'key-secret-id',
  model: 'acme/chat-large',
  provider: 'fake-cloud',
  status: 'success',
  httpStatus: 200,
  errorCode: null,
  durationMsToFirstToken: 120,
  inputTokens: 10,
  outputTokens: 5,
  cachedInputTokens: 2,
  reasoningTokens: 0,
  costNanoUsd: 900,
  attempts: [{ provider: 'fake-cloud', model: 'm', outcome: 'success', status: null, durationMs: 100 }],
} satisfies Partial<GenerationRecord>;

function observe(metrics: GatewayMetrics): void {
  metrics.observeRequest({
    endpoint: '/v1/chat/completions',
    operation: 'chat',
    httpStatus: 200,
    durationSeconds: 0.2,
    record: { ...emptyRecord(), ...record },
    organization: 'acme',
  });
}

function emptyRecord(): GenerationRecord {
  return {
    ...record,
    path: '',
    errorMessage: null,
    streamed: false,
    totalDurationMs: 0,
    createdAt: '',
    reqCost: 0,
    planningInputTokens: 0,
    planningOutputTokens: 0,
    planningCost: 0,
    loadedTools: '',
    routingCost: 0,
    optimizationPercentage: 0,
    score: 0,
    skills: '',
    tag: '',
    planningStatus: 'none',
    warnings: [],
  };
}

describe('GatewayMetrics', () => {
  it('labels by organization only when asked to', async () => {
    const plain = new GatewayMetrics({ organizationLabel: false, sources, defaultMetrics: false });
    observe(plain);
    const plainText = await plain.render();
    expect(plainText).toContain(
      'gateway_requests_total{endpoint="/v1/chat/completions",model="acme/chat-large",provider="fake-cloud",status_class="2xx"} 1',
    );
    expect(plainText).not.toContain('acme"}');
    expect(plainText).not.toContain('key-secret-id');
    const byOrg = new GatewayMetrics({ organizationLabel: true, sources, defaultMetrics: false });
    observe(byOrg);
    const orgText = await byOrg.render();
    expect(orgText).toContain('gateway_cost_nano_usd_total{model="acme/chat-large",organization="acme"} 900');
    expect(orgText).toContain(
      'gateway_tokens_total{model="acme/chat-large",direction="cached",organization="acme"} 2',
    );
  });

  it('reads queue and dependency figures when scraped', async () => {
    const metrics = new GatewayMetrics({ organizationLabel: false, sources, defaultMetrics: false });
    const text = await metrics.render();
    expect(text).toContain('gateway_records_pending 3');
    expect(text).toContain('gateway_records_written_total 40');
    expect(text).toContain('gateway_log_lines_dropped_total 7');
    expect(text).toContain('gateway_dependency_up{dependency="store"} 1');
    expect(text).toContain('gateway_dependency_up{dependency="redis"} 0');
  });

  it('keeps the active-stream gauge and the refusal kinds', async () => {
    const metrics = new GatewayMetrics({ organizationLabel: false, sources, defaultMetrics: false });
    metrics.streamOpened();
    metrics.streamOpened();
    metrics.streamClosed();
    metrics.limitRefused('key_cap');
    const text = await metrics.render();
    expect(text).toContain('gateway_active_streams 1');
    expect(text).toContain('gateway_limit_refusals_total{kind="key_cap"} 1');
    expect(text).toContain('gateway_limit_refusals_total{kind="forbidden"} 0');
  });

  it('labels each provider call with the model it asked for: a planner, a fallback model, the executor', async () => {
    const metrics = new GatewayMetrics({ organizationLabel: false, sources, defaultMetrics: false });
    const attempts: GenerationRecord['attempts'] = [
      {
        provider: 'fake-cloud',
        model: 'acme/planner',
        role: 'planner',
        outcome: 'success',
        status: 200,
        durationMs: 50,
      },
      { provider: 'fake-cloud', model: 'acme/first', outcome: 'error', status: 503, durationMs: 20 },
      { provider: 'fake-cloud', model: 'acme/chat-large', outcome: 'success', status: 200, durationMs: 100 },
    ];
    metrics.observeRequest({
      endpoint: '/v1/chat/completions',
      operation: 'chat',
      httpStatus: 200,
      durationSeconds: 0.2,
      record: { ...emptyRecord(), ...record, attempts },
      organization: 'acme',
    });
    const text = await metrics.render();
    const count = (model: string, errorType: string) =>
      `gen_ai_client_operation_duration_seconds_count{gen_ai_operation_name="chat",gen_ai_provider_name="fake-cloud",gen_ai_request_model="${model}",error_type="${errorType}"} 1`;
    expect(text).toContain(count('acme/planner', ''));
    expect(text).toContain(count('acme/first', '503'));
    expect(text).toContain(count('acme/chat-large', ''));
  });
});
