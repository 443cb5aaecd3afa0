import { describe, expect, it } from 'vitest';
import { activePresets, providerPresets } from './provider-presets.js';

describe('provider presets', () => {
  it('covers the providers the gateway promises', () => {
    expect(providerPresets.map((preset) => preset.id).sort()).toEqual(
      [
        'anthropic',
        'azure',
        'deepseek',
        'fireworks',
        'gemini',
        'groq',
        'mistral',
        'ollama',
        'openai',
        'openrouter',
        'together',
        'vllm',
        'xai',
      ].sort(),
    );
  });

  it('activates only presets with credentials', () => {
    expect(activePresets({})).toEqual([]);
    expect(activePresets({ GROQ_API_KEY: 'g', MISTRAL_API_KEY: '' }).map((p) => p.id)).toEqual(['groq']);
  });

  it.each([
    [{ OPENAI_API_KEY: 'k' }, 'openai', 'https://api.openai.com/v1'],
    [{ OLLAMA_BASE_URL: 'http://gpu-box:11434' }, 'ollama', 'http://gpu-box:11434/v1'],
    [{ OLLAMA_BASE_URL: 'http://gpu-box:11434/v1/' }, 'ollama', 'http://gpu-box:11434/v1'],
    [{ VLLM_BASE_URL: 'http://vllm:8000' }, 'vllm', 'http://vllm:8000/v1'],
    [
      { AZURE_OPENAI_API_KEY: 'a', AZURE_OPENAI_ENDPOINT: 'https://acme.openai.azure.com' },
      'azure',
      'https://acme.openai.azure.com/openai/v1',
    ],
  ])('%o gives %s at %s', (vars, id, baseUrl) => {
    const preset = activePresets(vars).find((p) => p.id === id);
    expect(preset?.baseUrl).toBe(baseUrl);
  });

  it('Azure needs both its key and its endpoint, and sends the key as api-key', () => {
    expect(activePresets({ AZURE_OPENAI_API_KEY: 'a' })).toEqual([]);
    const azure = activePresets({
      AZURE_OPENAI_API_KEY: 'a',
      AZURE_OPENAI_ENDPOINT: 'https://x.openai.azure.com',
    })[0];
    expect(azure?.quirks).toEqual({ authHeader: 'api-key', maxCompletionTokens: true });
    expect(azure?.apiKey).toBe('a');
  });

  it('Mistral does not get stream_options; Anthropic and Gemini use their own protocols', () => {
    const active = activePresets({ MISTRAL_API_KEY: 'm', ANTHROPIC_API_KEY: 'a', GEMINI_API_KEY: 'g' });
    expect(active.find((p) => p.id === 'mistral')?.quirks).toEqual({ streamUsageOption: false });
    expect(active.find((p) => p.id === 'anthropic')?.api).toBe('anthropic');
    expect(active.find((p) => p.id === 'gemini')?.baseUrl).toBe(
      'https://generativelanguage.googleapis.com/v1beta',
    );
  });

  it('Ollama and vLLM list their own models (discover); hosted presets do not', () => {
    const active = activePresets({
      OLLAMA_BASE_URL: 'http://gpu:11434',
      VLLM_BASE_URL: 'http://v:8000',
      OPENAI_API_KEY: 'k',
    });
    expect(Object.fromEntries(active.map((p) => [p.id, p.discover === true]))).toEqual({
      openai: false,
      ollama: true,
      vllm: true,
    });
  });
});
