import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../config/config-schema.js';
import { Catalog, type ResolvedProvider } from './catalog.js';
import type { CatalogModel } from './catalog-types.js';
import { discoveredCatalogModel, parseModelList, sameModels } from './discovered-models.js';
import { listingUrl } from './fetch-model-list.js';

describe('parseModelList', () => {
  it('reads an OpenAI / vLLM listing', () => {
    const body = {
      object: 'list',
      data: [{ id: 'meta-llama/Llama-3.1-8B', created: 1_700_000_000 }, { id: 'qwen' }],
    };
    expect(parseModelList('openai', body, 10)).toEqual({
      models: [
        { name: 'meta-llama/Llama-3.1-8B', created: 1_700_000_000 },
        { name: 'qwen', created: 0 },
      ],
      truncated: false,
    });
  });

  it('reads Ollama tags (name, else model; modified_at as the date)', () => {
    const body = {
      models: [
        { name: 'llama3.2:3b', modified_at: '2025-01-02T03:04:05Z' },
        { model: 'nomic-embed-text:latest' },
      ],
    };
    expect(parseModelList('ollama', body, 10).models).toEqual([
      { name: 'llama3.2:3b', created: Date.parse('2025-01-02T03:04:05Z') / 1000 },
      { name: 'nomic-embed-text:latest', created: 0 },
    ]);
  });

  it('skips entries without a usable name: not a string, spaces, control characters, too long, repeated', () => {
    const data = [
      { id: 7 },
      { id: 'has space' },
      { id: 'bell\u0007' },
      { id: 'x'.repeat(201) },
      'str',
      { id: 'ok' },
      { id: 'ok' },
    ];
    expect(parseModelList('openai', { data }, 10).models.map((m) => m.name)).toEqual(['ok']);
  });

  it('keeps at most maxModels and says it cut', () => {
    const data = Array.from({ length: 5 }, (_, i) => ({ id: `m${i}` }));
    expect(parseModelList('openai', { data }, 3)).toMatchObject({
      truncated: true,
      models: [{ name: 'm0' }, { name: 'm1' }, { name: 'm2' }],
    });
  });

  it.each([
    ['openai', { models: [] }],
    ['ollama', { data: [] }],
    ['openai', [1, 2]],
    ['openai', null],
  ] as const)('a %s listing without its list is an error', (api, body) => {
    expect(() => parseModelList(api, body, 10)).toThrow(/list/);
  });
});

describe('discovered models in the catalog', () => {
  const provider = (id: string, discover?: boolean): ResolvedProvider => ({
    id,
    api: 'openai',
    baseUrl: 'http://127.0.0.1:11434/v1',
    zdr: false,
    supportsSet: new Set(['chat', 'embeddings']),
    ...(discover === undefined ? {} : { discover }),
  });
  const bundled: CatalogModel = {
    id: 'meta/llama-3.1-8b-instruct',
    name: 'Llama 3.1 8B',
    created: 0,
    capabilities: [],
    api_compatibility: ['chat-completion'],
    endpoints: [
      { provider: 'ollama', model: 'llama3.1:8b', pricing: {} },
      { provider: 'cloud', model: 'llama-8b', pricing: { input: '0.0000001' } },
    ],
  };
  const catalog = () =>
    new Catalog({
      providers: new Map([
        ['ollama', provider('ollama', true)],
        ['cloud', provider('cloud')],
      ]),
      models: [bundled],
    });

  it('a discovering provider serves a bundled model only once it listed it (pulled)', () => {
    const models = catalog();
    expect(models.get(bundled.id)?.activeEndpoints.map((e) => e.provider)).toEqual(['cloud']);
    models.setDiscovered('ollama', [{ name: 'llama3.1:8b', created: 0 }]);
    expect(models.get(bundled.id)?.activeEndpoints.map((e) => e.provider)).toEqual(['ollama', 'cloud']);
  });

  it('listed models appear as <provider>/<name>, unpriced, chat or embeddings by name', () => {
    const models = catalog();
    models.setDiscovered('ollama', [
      { name: 'llama3.2:3b', created: 5 },
      { name: 'nomic-embed-text:latest', created: 0 },
    ]);
    const chat = models.get('ollama/llama3.2:3b');
    expect(chat).toMatchObject({
      discoveredOn: 'ollama',
      created: 5,
      api_compatibility: ['chat-completion', 'open-responses'],
    });
    expect(chat?.activeEndpoints[0]).toMatchObject({
      provider: 'ollama',
      model: 'llama3.2:3b',
      modelId: 'ollama/llama3.2:3b',
    });
    expect(chat?.activeEndpoints[0]?.compiledPricing.input).toBe(0n);
    expect(models.get('ollama/nomic-embed-text:latest')?.api_compatibility).toEqual(['embeddings']);
    expect(models.withBareName('llama3.2:3b')).toEqual(['ollama/llama3.2:3b']);
  });

  it('a new listing replaces the old one', () => {
    const models = catalog();
    models.setDiscovered('ollama', [{ name: 'a', created: 0 }]);
    models.setDiscovered('ollama', [{ name: 'b', created: 0 }]);
    expect(models.get('ollama/a')).toBeUndefined();
    expect(models.get('ollama/b')).toBeDefined();
  });

  it('a configured model of the same id wins over the discovered one', () => {
    const configured: CatalogModel = {
      ...discoveredCatalogModel('ollama', { name: 'x', created: 0 }),
      discoveredOn: undefined,
      name: 'Mine',
    };
    const models = new Catalog({
      providers: new Map([['ollama', provider('ollama', true)]]),
      models: [configured],
      declared: new Set(['ollama/x\u0000ollama']),
    });
    expect(models.get('ollama/x')?.name).toBe('Mine');
    models.setDiscovered('ollama', [{ name: 'x', created: 0 }]);
    expect(models.get('ollama/x')?.name).toBe('Mine');
  });

  it('sameModels compares names in order', () => {
    expect(sameModels(undefined, [])).toBe(false);
    expect(sameModels([{ name: 'a', created: 1 }], [{ name: 'a', created: 2 }])).toBe(true);
    expect(sameModels([{ name: 'a', created: 1 }], [{ name: 'b', created: 1 }])).toBe(false);
  });
});

describe('listingUrl', () => {
  const at = (baseUrl: string, extra: Partial<ProviderConfig> = {}) =>
    listingUrl({ id: 'x', api: 'openai', baseUrl, zdr: false, supportsSet: new Set(), ...extra }).href;

  it.each([
    ['http://vllm:8000/v1', {}, 'http://vllm:8000/v1/models'],
    ['http://vllm:8000/v1/', {}, 'http://vllm:8000/v1/models'],
    ['http://gpu:11434/v1', { discoverApi: 'ollama' as const }, 'http://gpu:11434/api/tags'],
    ['http://gpu:11434/v1', { id: 'ollama' }, 'http://gpu:11434/api/tags'],
    ['http://gpu:11434/v1', { id: 'ollama', discoverApi: 'openai' as const }, 'http://gpu:11434/v1/models'],
  ])('%s %o → %s', (baseUrl, extra, expected) => {
    expect(at(baseUrl, extra)).toBe(expected);
  });
});
