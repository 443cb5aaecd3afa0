import type { EndpointKind, ProviderConfig, ProviderQuirks } from '../config/config-schema.js';

/**
 * Built-in hosting providers. Each becomes active when its credential variable is set (Ollama and vLLM: their
 * base URL); a provider of the same id in the config file replaces the preset. OpenAI-compatible ones are a
 * few lines over the OpenAI adapter: what they serve natively, and their quirks.
 */
export interface ProviderPreset {
  id: string;
  api: ProviderConfig['api'];
  baseUrl: string;
  /** Variable holding the API key. */
  keyVar?: string;
  /** Variable holding the base URL; when set (and no key is needed), the preset is active. */
  baseUrlVar?: string;
  /** Appended to the base URL variable's value (e.g. Azure's `/openai/v1`). */
  baseUrlSuffix?: string;
  /** Both the key and the base URL variable are needed. */
  needsBoth?: boolean;
  supports?: EndpointKind[];
  quirks?: ProviderQuirks;
  /** The server lists its own models (Ollama, vLLM): they are served as `<id>/<name>`. */
  discover?: boolean;
}

export const providerPresets: readonly ProviderPreset[] = [
  {
    id: 'openai',
    api: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    keyVar: 'OPENAI_API_KEY',
    quirks: { maxCompletionTokens: true },
  },
  {
    // Azure OpenAI's v1 API: https://<resource>.openai.azure.com/openai/v1, key in the `api-key` header.
    id: 'azure',
    api: 'openai',
    baseUrl: '',
    keyVar: 'AZURE_OPENAI_API_KEY',
    baseUrlVar: 'AZURE_OPENAI_ENDPOINT',
    baseUrlSuffix: '/openai/v1',
    needsBoth: true,
    quirks: { authHeader: 'api-key', maxCompletionTokens: true },
  },
  { id: 'anthropic', api: 'anthropic', baseUrl: 'https://api.anthropic.com/v1', keyVar: 'ANTHROPIC_API_KEY' },
  {
    id: 'gemini',
    api: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    keyVar: 'GEMINI_API_KEY',
  },
  // Groq reports streamed usage in `x_groq.usage` as well; the adapter reads both.
  {
    id: 'groq',
    api: 'openai',
    baseUrl: 'https://api.groq.com/openai/v1',
    keyVar: 'GROQ_API_KEY',
    supports: ['chat', 'responses'],
  },
  // Mistral rejects unknown request members and always sends usage in its last chunk.
  {
    id: 'mistral',
    api: 'openai',
    baseUrl: 'https://api.mistral.ai/v1',
    keyVar: 'MISTRAL_API_KEY',
    supports: ['chat', 'embeddings'],
    quirks: { streamUsageOption: false },
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
    supports: ['chat', 'responses', 'embeddings'],
  },
  {
    id: 'ollama',
    api: 'openai',
    baseUrl: '',
    baseUrlVar: 'OLLAMA_BASE_URL',
    baseUrlSuffix: '/v1',
    supports: ['chat', 'embeddings'],
    discover: true,
  },
  {
    // vLLM's OpenAI-compatible server; VLLM_API_KEY when it was started with --api-key.
    id: 'vllm',
    api: 'openai',
    baseUrl: '',
    baseUrlVar: 'VLLM_BASE_URL',
    baseUrlSuffix: '/v1',
    keyVar: 'VLLM_API_KEY',
    supports: ['chat', 'responses', 'embeddings'],
    discover: true,
  },
];

/** The presets whose credentials are present, as provider configs. */
export function activePresets(vars: Readonly<Record<string, string | undefined>>): ProviderConfig[] {
  const active: ProviderConfig[] = [];
  for (const preset of providerPresets) {
    const apiKey = preset.keyVar ? vars[preset.keyVar] || undefined : undefined;
    const baseUrlVar = preset.baseUrlVar ? vars[preset.baseUrlVar] || undefined : undefined;
    const usable = preset.needsBoth ? apiKey && baseUrlVar : preset.baseUrlVar ? baseUrlVar : apiKey;
    if (!usable) continue;
    active.push({
      id: preset.id,
      api: preset.api,
      baseUrl: baseUrlVar ? withSuffix(baseUrlVar, preset.baseUrlSuffix ?? '') : preset.baseUrl,
      apiKey,
      zdr: false,
      supports: preset.supports,
      quirks: preset.quirks,
      ...(preset.discover ? { discover: true } : {}),
    });
  }
  return active;
}

/** `OLLAMA_BASE_URL=http://host:11434` and `…/v1` both give `…/v1`. */
function withSuffix(url: string, suffix: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return suffix && !trimmed.endsWith(suffix) ? `${trimmed}${suffix}` : trimmed;
}
