import type { EndpointKind, ProviderConfig } from '../config/config-schema.js';

/**
 * Built-in hosting providers. Each becomes active when its credential variable is set (Ollama: its base URL);
 * a provider of the same id in the config file replaces the preset.
 */
export interface ProviderPreset {
  id: string;
  api: ProviderConfig['api'];
  baseUrl: string;
  /** Variable holding the API key. */
  keyVar?: string;
  /** Variable holding the base URL; when set, the preset is active without a key. */
  baseUrlVar?: string;
  supports?: EndpointKind[];
}

export const providerPresets: readonly ProviderPreset[] = [
  { id: 'openai', api: 'openai', baseUrl: 'https://api.openai.com/v1', keyVar: 'OPENAI_API_KEY' },
  { id: 'anthropic', api: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', keyVar: 'ANTHROPIC_API_KEY' },
  {
    id: 'gemini',
    api: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    keyVar: 'GEMINI_API_KEY',
  },
  {
    id: 'groq',
    api: 'openai',
    baseUrl: 'https://api.groq.com/openai/v1',
    keyVar: 'GROQ_API_KEY',
    supports: ['chat', 'responses'],
  },
  {
    id: 'mistral',
    api: 'openai',
    baseUrl: 'https://api.mistral.ai/v1',
    keyVar: 'MISTRAL_API_KEY',
    supports: ['chat', 'embeddings'],
  },
  {
    id: 'deepseek',
    api: 'openai',
    baseUrl: 'https://api.deepseek.com/v1',
    keyVar: 'DEEPSEEK_API_KEY',
    supports: ['chat'],
  },
  {
    id: 'together',
    api: 'openai',
    baseUrl: 'https://api.together.xyz/v1',
    keyVar: 'TOGETHER_API_KEY',
    supports: ['chat', 'embeddings', 'images'],
  },
  {
    id: 'xai',
    api: 'openai',
    baseUrl: 'https://api.x.ai/v1',
    keyVar: 'XAI_API_KEY',
    supports: ['chat', 'responses', 'images'],
  },
  {
    id: 'fireworks',
    api: 'openai',
    baseUrl: 'https://api.fireworks.ai/inference/v1',
    keyVar: 'FIREWORKS_API_KEY',
    supports: ['chat', 'embeddings'],
  },
  {
    id: 'openrouter',
    api: 'openai',
    baseUrl: 'https://openrouter.ai/api/v1',
    keyVar: 'OPENROUTER_API_KEY',
    supports: ['chat', 'responses'],
  },
  {
    id: 'ollama',
    api: 'openai',
    baseUrl: 'http://127.0.0.1:11434/v1',
    baseUrlVar: 'OLLAMA_BASE_URL',
    supports: ['chat', 'embeddings'],
  },
];

/** The presets whose credentials are present, as provider configs. */
export function activePresets(vars: Readonly<Record<string, string | undefined>>): ProviderConfig[] {
  const active: ProviderConfig[] = [];
  for (const preset of providerPresets) {
    const apiKey = preset.keyVar ? vars[preset.keyVar] : undefined;
    const baseUrlOverride = preset.baseUrlVar ? vars[preset.baseUrlVar] : undefined;
    if (!apiKey && !baseUrlOverride) continue;
    active.push({
      id: preset.id,
      api: preset.api,
      baseUrl: withVersion(baseUrlOverride ?? preset.baseUrl),
      apiKey,
      zdr: false,
      supports: preset.supports,
    });
  }
  return active;
}

/** `OLLAMA_BASE_URL` is usually given without `/v1`. */
function withVersion(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return /\/v\d+(beta)?$/.test(trimmed) ? trimmed : `${trimmed}/v1`;
}
