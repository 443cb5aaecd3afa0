import { describe, expect, it } from 'vitest';
import { bundledModels } from '../catalog/bundled-models.js';
import { buildCatalog } from '../catalog/catalog.js';
import { ConfigError, parseConfig } from './load-config.js';

const provider = { id: 'p', api: 'openai', baseUrl: 'http://127.0.0.1:1/v1' };

describe('routing, discovery and aliases in the config', () => {
  it('have defaults', () => {
    const config = parseConfig({}, 'test');
    expect(config.routing).toEqual({
      retryBaseMs: 100,
      retryMaxMs: 2_000,
      deadlineMs: 120_000,
      maxModels: 10,
    });
    expect(config.discovery).toEqual({
      timeoutMs: 10_000,
      maxResponseBytes: 4 * 1024 * 1024,
      maxModels: 1_000,
    });
    expect(config.aliases).toEqual({});
  });

  it.each([
    [{ routing: { retryBaseMs: 0 } }, 'routing.retryBaseMs'],
    [{ routing: { retryBaseMs: 10_001 } }, 'routing.retryBaseMs'],
    [{ routing: { retryMaxMs: 60_001 } }, 'routing.retryMaxMs'],
    [{ routing: { deadlineMs: 99 } }, 'routing.deadlineMs'],
    [{ routing: { maxModels: 101 } }, 'routing.maxModels'],
    [{ discovery: { maxResponseBytes: 1_000 } }, 'discovery.maxResponseBytes'],
    [{ discovery: { maxModels: 0 } }, 'discovery.maxModels'],
    [{ discovery: { timeoutMs: 120_001 } }, 'discovery.timeoutMs'],
    [{ providers: [{ ...provider, retries: 6 }] }, 'providers.0.retries'],
    [{ providers: [{ ...provider, retries: -1 }] }, 'providers.0.retries'],
    [{ providers: [{ ...provider, discoverIntervalSeconds: 0 }] }, 'providers.0.discoverIntervalSeconds'],
    [
      { providers: [{ ...provider, discoverIntervalSeconds: 86_401 }] },
      'providers.0.discoverIntervalSeconds',
    ],
    [{ providers: [{ ...provider, discoverApi: 'lmstudio' }] }, 'providers.0.discoverApi'],
    [
      {
        providers: [provider],
        models: [{ id: 'a/b', endpoints: [{ provider: 'p', model: 'b', weight: -1 }] }],
      },
      'models.0.endpoints.0.weight',
    ],
    [
      {
        providers: [provider],
        models: [{ id: 'a/b', endpoints: [{ provider: 'p', model: 'b', rulesOf: 'gpt-4o' }] }],
      },
      'models.0.endpoints.0.rulesOf',
    ],
    [{ aliases: { fast: 'not-a-slug' } }, 'aliases.fast'],
    [{ aliases: { 'has space': 'a/b' } }, 'aliases'],
  ])('refuses %j naming %s', (config, path) => {
    expect(() => parseConfig(config, 'test')).toThrow(ConfigError);
    expect(() => parseConfig(config, 'test')).toThrow(path);
  });

  it('discover works with OpenAI-compatible servers only', () => {
    const config = parseConfig({ providers: [{ ...provider, api: 'anthropic', discover: true }] }, 'test');
    const build = () =>
      buildCatalog({
        config,
        bundled: bundledModels,
        vars: {},
        supportedApis: new Set(['openai', 'anthropic']),
        warn: () => undefined,
      });
    expect(build).toThrow(/discover works with api openai only/);
  });
});
