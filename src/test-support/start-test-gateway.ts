import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GatewayOptions, type RunningGateway, startGateway } from '../app/start-gateway.js';
import { parseConfig } from '../config/load-config.js';
import { type FakeUpstream, startFakeOpenAIUpstream } from './fake-openai-upstream.js';

export const TEST_KEY = 'sk-gw-test-key-acme';
export const OTHER_ORG_KEY = 'sk-gw-test-key-other';

export interface TestGateway {
  gateway: RunningGateway;
  upstream: FakeUpstream;
  /** Base URL ending in /v1. */
  baseURL: string;
  /** The SQLite store the gateway writes to. */
  databaseUrl: string;
  /** Stops the gateway and the upstream, and removes the temporary directory of the store. */
  stop(): Promise<void>;
}

/**
 * Config of a gateway in front of one fake OpenAI-protocol upstream, with two organizations. The fake's faults
 * apply to one request each, so its provider does not retry (`retries: 0`): a fault is what the client sees.
 */
export function testConfig(upstreamUrl: string, extra: Record<string, unknown> = {}) {
  return {
    providers: [
      {
        id: 'fake-cloud',
        api: 'openai',
        baseUrl: upstreamUrl,
        apiKey: 'sk-upstream-secret',
        timeoutMs: 2000,
        retries: 0,
      },
    ],
    models: [
      {
        id: 'acme/chat-large',
        name: 'Acme Chat Large',
        capabilities: ['tool-use', 'vision'],
        api_compatibility: ['chat-completion', 'open-responses'],
        context_window: 128000,
        max_tokens: 16384,
        endpoints: [
          {
            provider: 'fake-cloud',
            model: 'chat-large-2026',
            pricing: { input: '0.000002', output: '0.000008' },
          },
        ],
      },
      {
        id: 'acme/embed-small',
        name: 'Acme Embed Small',
        api_compatibility: ['embeddings'],
        endpoints: [{ provider: 'fake-cloud', model: 'embed-small-1', pricing: { input: '0.00000002' } }],
      },
      {
        id: 'acme/image-1',
        name: 'Acme Image',
        capabilities: ['image-generation'],
        api_compatibility: ['image-generation'],
        endpoints: [
          { provider: 'fake-cloud', model: 'image-1', pricing: { input: '0.000005', output: '0.00004' } },
        ],
      },
    ],
    organizations: [
      { id: 'acme', apiKeys: [TEST_KEY] },
      { id: 'other', apiKeys: [OTHER_ORG_KEY] },
    ],
    ...extra,
  };
}

/** Starts a fake upstream and the real gateway (HTTP on a free loopback port, SQLite in a temp dir). */
export async function startTestGateway(
  configFor: (upstreamUrl: string) => Record<string, unknown> = testConfig,
  options: Pick<GatewayOptions, 'logger' | 'otel' | 'adminToken'> = {},
): Promise<TestGateway> {
  const upstream = await startFakeOpenAIUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const databaseUrl = `sqlite:${join(dir, 'gateway.db')}`;
  const gateway = await startGateway({
    config: parseConfig(configFor(upstream.url), 'test'),
    databaseUrl,
    port: 0,
    host: '127.0.0.1',
    vars: {},
    // With a logger, operator lines go to it (as in production); else nowhere.
    log: options.logger ? undefined : () => undefined,
    ...options,
  });
  return {
    gateway,
    upstream,
    baseURL: `${gateway.url}/v1`,
    databaseUrl,
    stop: async () => {
      await gateway.stop();
      await upstream.close();
      // The database and the journal beside it: nothing reads them once the gateway stopped this way.
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
