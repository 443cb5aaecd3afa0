import { describe, expect, it } from 'vitest';
import { bundledModels, perMillion } from './bundled-models.js';
import type { CatalogModel, PriceTier, Pricing } from './catalog-types.js';

const PRESET_PROVIDERS = [
  'openai',
  'anthropic',
  'gemini',
  'groq',
  'mistral',
  'deepseek',
  'together',
  'xai',
  'fireworks',
  'openrouter',
  'ollama',
];
const CREATORS = ['openai', 'anthropic', 'google', 'meta', 'mistral', 'deepseek', 'xai', 'qwen'];
/** A non-negative decimal string with at most 18 decimals (what accounting parses to atto-USD). */
const PRICE = /^(0|[1-9]\d*)(\.\d{1,18})?$/;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

function model(id: string): CatalogModel {
  const found = bundledModels.find((candidate) => candidate.id === id);
  if (!found) throw new Error(`no bundled model ${id}`);
  return found;
}

function pricing(id: string, provider: string): Pricing {
  const endpoint = model(id).endpoints.find((candidate) => candidate.provider === provider);
  if (!endpoint) throw new Error(`${id} has no ${provider} endpoint`);
  return endpoint.pricing;
}

function allPrices(p: Pricing): string[] {
  const flat = [p.input, p.output, p.input_cache_read, p.input_cache_write, p.web_search, p.image];
  const tiered = [...(p.input_tiers ?? []), ...(p.output_tiers ?? [])].map((tier) => tier.price);
  return [...flat, ...tiered].filter((price): price is string => price !== undefined);
}

const endpoints = bundledModels.flatMap((m) => m.endpoints.map((endpoint) => ({ model: m, endpoint })));

describe('perMillion', () => {
  it('shifts the decimal point exactly, without floating-point artefacts', () => {
    expect(perMillion('2.50')).toBe('0.0000025');
    expect(perMillion('10')).toBe('0.00001');
    expect(perMillion('0.10')).toBe('0.0000001');
    expect(perMillion('0.075')).toBe('0.000000075');
    expect(perMillion('0.0028')).toBe('0.0000000028');
    expect(perMillion('1500000')).toBe('1.5');
    expect(perMillion('0')).toBe('0');
    expect(perMillion('0.00')).toBe('0');
  });

  it('rejects anything that is not a plain decimal', () => {
    expect(() => perMillion('-1')).toThrow();
    expect(() => perMillion('1e-6')).toThrow();
    expect(() => perMillion('$2')).toThrow();
  });
});

describe('bundled catalog', () => {
  it('has a realistic number of models', () => {
    expect(bundledModels.length).toBeGreaterThanOrEqual(40);
    expect(bundledModels.length).toBeLessThanOrEqual(60);
  });

  it('has unique ids of the form creator/name', () => {
    const ids = bundledModels.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[a-z0-9-]+\/[a-z0-9][a-z0-9.-]*$/);
      expect(CREATORS).toContain(id.split('/')[0]);
    }
  });

  it('has at least one model from every creator', () => {
    for (const creator of CREATORS) {
      expect(
        bundledModels.some((m) => m.id.startsWith(`${creator}/`)),
        creator,
      ).toBe(true);
    }
  });

  it('describes every model with a name, a description and a release time', () => {
    for (const m of bundledModels) {
      expect(m.name.length, m.id).toBeGreaterThan(0);
      expect(m.description?.length ?? 0, m.id).toBeGreaterThan(0);
      expect(Number.isInteger(m.created), m.id).toBe(true);
      expect(m.created, m.id).toBeGreaterThan(Date.parse('2023-01-01T00:00:00Z') / 1000);
      if (m.context_window !== undefined) expect(Number.isInteger(m.context_window), m.id).toBe(true);
      if (m.max_tokens !== undefined) expect(Number.isInteger(m.max_tokens), m.id).toBe(true);
    }
  });

  it('has a valid pricesCheckedOn date on every entry', () => {
    for (const m of bundledModels) {
      expect(m.pricesCheckedOn, m.id).toMatch(ISO_DAY);
      const day = m.pricesCheckedOn ?? '';
      expect(new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10), m.id).toBe(day);
    }
  });

  it('serves every model through at least one preset provider', () => {
    for (const m of bundledModels) expect(m.endpoints.length, m.id).toBeGreaterThan(0);
    for (const { model: m, endpoint } of endpoints) {
      expect(PRESET_PROVIDERS, m.id).toContain(endpoint.provider);
      expect(endpoint.model.length, m.id).toBeGreaterThan(0);
    }
  });

  it('writes every price as a non-negative decimal string', () => {
    for (const { model: m, endpoint } of endpoints) {
      const prices = allPrices(endpoint.pricing);
      expect(prices.length, `${m.id} @ ${endpoint.provider}`).toBeGreaterThan(0);
      for (const price of prices) expect(price, `${m.id} @ ${endpoint.provider}`).toMatch(PRICE);
    }
  });

  it('has contiguous, ordered tiers from 0 to the context window, starting at the flat price', () => {
    const check = (m: CatalogModel, tiers: PriceTier[] | undefined, flat: string | undefined) => {
      if (tiers === undefined) return;
      expect(tiers.length, m.id).toBeGreaterThan(0);
      expect(tiers[0]?.min, m.id).toBe(0);
      expect(tiers[0]?.price, m.id).toBe(flat);
      tiers.forEach((tier, index) => {
        expect(tier.max, m.id).toBeGreaterThanOrEqual(tier.min);
        const previous = tiers[index - 1];
        if (previous) expect(tier.min, m.id).toBe(previous.max + 1);
      });
      expect(m.context_window, m.id).toBeDefined();
      expect(tiers.at(-1)?.max, m.id).toBe(m.context_window);
    };
    let tiered = 0;
    for (const { model: m, endpoint } of endpoints) {
      const { input_tiers, output_tiers, input, output } = endpoint.pricing;
      if (input_tiers || output_tiers) tiered += 1;
      check(m, input_tiers, input);
      check(m, output_tiers, output);
    }
    expect(tiered).toBeGreaterThan(0);
  });

  it('gives chat models chat-completion and open-responses, and vendor-messages only to Anthropic', () => {
    for (const m of bundledModels) {
      if (m.api_compatibility.includes('chat-completion')) {
        expect(m.api_compatibility, m.id).toContain('open-responses');
      }
      const isAnthropic = m.id.startsWith('anthropic/');
      expect(m.api_compatibility.includes('vendor-messages'), m.id).toBe(isAnthropic);
    }
  });

  it('gives embeddings models only embeddings and image models only image-generation', () => {
    const embeddings = bundledModels.filter((m) => m.api_compatibility.includes('embeddings'));
    const images = bundledModels.filter((m) => m.api_compatibility.includes('image-generation'));
    expect(embeddings.length).toBeGreaterThan(0);
    expect(images.length).toBeGreaterThan(0);
    for (const m of embeddings) expect(m.api_compatibility, m.id).toEqual(['embeddings']);
    for (const m of images) {
      expect(m.api_compatibility, m.id).toEqual(['image-generation']);
      expect(m.capabilities, m.id).toContain('image-generation');
    }
  });

  it('makes Ollama endpoints free and uses them only for open-weight creators', () => {
    const ollama = endpoints.filter(({ endpoint }) => endpoint.provider === 'ollama');
    expect(ollama.length).toBeGreaterThan(0);
    for (const { model: m, endpoint } of ollama) {
      expect(
        ['openai/gpt-oss', 'meta/', 'qwen/'].some((prefix) => m.id.startsWith(prefix)),
        m.id,
      ).toBe(true);
      expect(
        allPrices(endpoint.pricing).every((price) => price === '0'),
        m.id,
      ).toBe(true);
    }
  });

  it('carries the list prices found on the vendors’ pages', () => {
    expect(pricing('anthropic/claude-opus-5.5', 'anthropic')).toMatchObject({
      input: '0.000004',
      output: '0.00002',
      input_cache_read: '0.0000002',
      input_cache_write: '0.000005',
    });
    expect(pricing('anthropic/claude-haiku-5.5', 'anthropic').output_tiers).toEqual([
      { min: 0, max: 100_000, price: '0.0000005' },
      { min: 100_001, max: 1_000_000, price: '0.0000025' },
    ]);
    expect(pricing('openai/gpt-6.2-sol', 'openai')).toMatchObject({
      input: '0.000002',
      output: '0.00001',
      input_cache_read: '0.0000001',
      input_cache_write: '0.0000025',
    });
    expect(pricing('openai/gpt-4o-mini', 'openai').input).toBe('0.00000015');
    expect(pricing('openai/text-embedding-3-small', 'openai').input).toBe('0.00000002');
    expect(pricing('google/gemini-2.5-pro', 'gemini').input_tiers).toEqual([
      { min: 0, max: 200_000, price: '0.00000125' },
      { min: 200_001, max: 1_048_576, price: '0.0000025' },
    ]);
    expect(pricing('google/gemini-3-pro-image', 'gemini').image).toBe('0.134');
    expect(pricing('meta/llama-3.3-70b-instruct', 'groq')).toEqual({
      input: '0.00000059',
      output: '0.00000079',
    });
    expect(pricing('meta/llama-3.3-70b-instruct', 'together').input).toBe('0.00000088');
    expect(pricing('openai/gpt-oss-120b', 'fireworks').input_cache_read).toBe('0.000000015');
    expect(pricing('deepseek/deepseek-flash', 'deepseek').input_cache_read).toBe('0.000000006');
    expect(pricing('xai/grok-4.5', 'xai').output).toBe('0.000006');
    expect(pricing('mistral/mistral-medium-3.5', 'mistral').output).toBe('0.0000075');
  });
});
