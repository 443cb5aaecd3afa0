/** Mistral, Meta, DeepSeek, xAI and Qwen models in the bundled catalog (sources and conventions: ../bundled-models.ts). */
import type { CatalogModel } from '../catalog-types.js';
import { CHAT, CHECKED_ON, EMBEDDINGS, FREE, perMillion, released } from './catalog-helpers.js';

export const mistral: CatalogModel[] = [
  {
    id: 'mistral/mistral-medium-3.5',
    name: 'Mistral Medium 3.5',
    description:
      "Mistral's dense 128B multimodal model for agentic coding, tool calling and long-horizon tasks.",
    created: released('2026-04-28'),
    capabilities: ['tool-use', 'vision', 'reasoning'],
    api_compatibility: CHAT,
    context_window: 262_144,
    endpoints: [
      {
        provider: 'mistral',
        model: 'mistral-medium-3.5',
        pricing: { input: perMillion('1.50'), output: perMillion('7.50') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'mistral/mistral-large-3',
    name: 'Mistral Large 3',
    description: "Mistral's open-weight general-purpose large model with vision and tool use.",
    created: released('2025-12-02'),
    capabilities: ['tool-use', 'vision'],
    api_compatibility: CHAT,
    endpoints: [
      {
        provider: 'mistral',
        model: 'mistral-large-2512',
        pricing: { input: perMillion('0.50'), output: perMillion('1.50') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'mistral/mistral-small-4',
    name: 'Mistral Small 4',
    description:
      "Mistral's open (Apache 2.0) multimodal mixture-of-experts model, 119B total and 6.5B active parameters.",
    created: released('2026-03-16'),
    capabilities: ['tool-use', 'vision'],
    api_compatibility: CHAT,
    endpoints: [
      {
        provider: 'mistral',
        model: 'mistral-small-2603',
        pricing: { input: perMillion('0.10'), output: perMillion('0.30') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'mistral/codestral',
    name: 'Codestral',
    description: "Mistral's coding model, specialised in fill-in-the-middle code completion.",
    created: released('2025-07-30'),
    capabilities: ['tool-use'],
    api_compatibility: CHAT,
    endpoints: [
      {
        provider: 'mistral',
        model: 'codestral-2508',
        pricing: { input: perMillion('0.30'), output: perMillion('0.90') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'mistral/mistral-embed',
    name: 'Mistral Embed',
    description: "Mistral's text embedding model for retrieval and semantic search.",
    created: released('2023-12-11'),
    capabilities: [],
    api_compatibility: EMBEDDINGS,
    context_window: 8_192,
    endpoints: [{ provider: 'mistral', model: 'mistral-embed', pricing: { input: perMillion('0.10') } }],
    pricesCheckedOn: CHECKED_ON,
  },
];

export const meta: CatalogModel[] = [
  {
    id: 'meta/llama-3.3-70b-instruct',
    name: 'Llama 3.3 70B Instruct',
    description: "Meta's multilingual 70B instruction-tuned open-weight text model.",
    created: released('2024-12-06'),
    capabilities: ['tool-use'],
    api_compatibility: CHAT,
    context_window: 131_072,
    max_tokens: 32_768,
    endpoints: [
      {
        provider: 'groq',
        model: 'llama-3.3-70b-versatile',
        pricing: { input: perMillion('0.59'), output: perMillion('0.79') },
      },
      {
        provider: 'together',
        model: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
        pricing: { input: perMillion('0.88'), output: perMillion('0.88') },
      },
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/llama-v3p3-70b-instruct',
        pricing: { input: perMillion('0.90'), output: perMillion('0.90') },
      },
      { provider: 'ollama', model: 'llama3.3:70b', pricing: FREE },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'meta/llama-3.1-8b-instruct',
    name: 'Llama 3.1 8B Instruct',
    description: "Meta's small multilingual open-weight model for fast, cheap text tasks.",
    created: released('2024-07-23'),
    capabilities: ['tool-use'],
    api_compatibility: CHAT,
    context_window: 131_072,
    endpoints: [
      {
        provider: 'groq',
        model: 'llama-3.1-8b-instant',
        pricing: { input: perMillion('0.05'), output: perMillion('0.08') },
      },
      {
        provider: 'together',
        model: 'meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo',
        pricing: { input: perMillion('0.18'), output: perMillion('0.18') },
      },
      { provider: 'ollama', model: 'llama3.1:8b', pricing: FREE },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'meta/llama-4-scout',
    name: 'Llama 4 Scout',
    description:
      "Meta's natively multimodal mixture-of-experts model with 17B active parameters and 16 experts.",
    created: released('2025-04-05'),
    capabilities: ['tool-use', 'vision'],
    api_compatibility: CHAT,
    context_window: 131_072,
    endpoints: [
      {
        provider: 'groq',
        model: 'meta-llama/llama-4-scout-17b-16e-instruct',
        pricing: { input: perMillion('0.11'), output: perMillion('0.34') },
      },
      { provider: 'ollama', model: 'llama4:scout', pricing: FREE },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
];

export const deepseek: CatalogModel[] = [
  {
    id: 'deepseek/deepseek-flash',
    name: 'DeepSeek V4.1 Flash',
    description:
      "DeepSeek's fast default model (successor of deepseek-chat) with thinking and non-thinking modes and 1M context.",
    created: released('2026-09-10'),
    capabilities: ['tool-use', 'vision', 'reasoning', 'implicit-caching'],
    api_compatibility: CHAT,
    endpoints: [
      {
        provider: 'deepseek',
        model: 'deepseek-flash',
        pricing: {
          input: perMillion('0.30'),
          output: perMillion('1.20'),
          input_cache_read: perMillion('0.006'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'deepseek/deepseek-v4-pro',
    name: 'DeepSeek V4 Pro',
    description:
      "DeepSeek's strongest model (successor of deepseek-reasoner), thinking by default, with 1M context.",
    created: released('2026-08-13'),
    capabilities: ['tool-use', 'reasoning', 'implicit-caching'],
    api_compatibility: CHAT,
    endpoints: [
      {
        provider: 'deepseek',
        model: 'deepseek-v4-pro',
        pricing: {
          input: perMillion('1.32'),
          output: perMillion('3.96'),
          input_cache_read: perMillion('0.044'),
        },
      },
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/deepseek-v4-pro',
        pricing: {
          input: perMillion('1.74'),
          output: perMillion('3.48'),
          input_cache_read: perMillion('0.145'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
];

export const xai: CatalogModel[] = [
  {
    id: 'xai/grok-4.5',
    name: 'Grok 4.5',
    description: "xAI's flagship reasoning model for coding, agentic tasks and knowledge work.",
    created: released('2026-07-09'),
    capabilities: ['tool-use', 'vision', 'reasoning', 'implicit-caching'],
    api_compatibility: CHAT,
    context_window: 500_000,
    endpoints: [
      {
        provider: 'xai',
        model: 'grok-4.5',
        pricing: { input: perMillion('2'), output: perMillion('6'), input_cache_read: perMillion('0.50') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'xai/grok-4.3',
    name: 'Grok 4.3',
    description: "xAI's standard Grok 4 model with always-on reasoning and 1M-token context.",
    created: released('2026-05-03'),
    capabilities: ['tool-use', 'vision', 'reasoning', 'implicit-caching'],
    api_compatibility: CHAT,
    context_window: 1_000_000,
    endpoints: [
      {
        provider: 'xai',
        model: 'grok-4.3',
        pricing: { input: perMillion('1.25'), output: perMillion('2.50') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'xai/grok-4-fast-non-reasoning',
    name: 'Grok 4 Fast (Non-Reasoning)',
    description: "xAI's cost-efficient Grok 4 Fast without reasoning, with a 2M-token context.",
    created: released('2025-09-19'),
    capabilities: ['tool-use', 'vision', 'implicit-caching'],
    api_compatibility: CHAT,
    context_window: 2_000_000,
    endpoints: [
      {
        provider: 'xai',
        model: 'grok-4-fast-non-reasoning',
        pricing: {
          input: perMillion('0.20'),
          output: perMillion('0.50'),
          input_cache_read: perMillion('0.05'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
];

export const qwen: CatalogModel[] = [
  {
    id: 'qwen/qwen3-32b',
    name: 'Qwen3 32B',
    description: "Alibaba's dense 32B open-weight Qwen3 model with switchable thinking mode.",
    created: released('2025-04-29'),
    capabilities: ['tool-use', 'reasoning'],
    api_compatibility: CHAT,
    context_window: 131_072,
    endpoints: [
      {
        provider: 'groq',
        model: 'qwen/qwen3-32b',
        pricing: { input: perMillion('0.29'), output: perMillion('0.59') },
      },
      { provider: 'ollama', model: 'qwen3:32b', pricing: FREE },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'qwen/qwen3-coder-480b-a35b-instruct',
    name: 'Qwen3 Coder 480B A35B',
    description: "Alibaba's open-weight agentic coding mixture-of-experts model with 35B active parameters.",
    created: released('2025-07-22'),
    capabilities: ['tool-use'],
    api_compatibility: CHAT,
    context_window: 262_144,
    endpoints: [
      {
        provider: 'together',
        model: 'Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8',
        pricing: { input: perMillion('2'), output: perMillion('2') },
      },
      { provider: 'ollama', model: 'qwen3-coder:480b', pricing: FREE },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'qwen/qwen3-vl-30b-a3b-instruct',
    name: 'Qwen3 VL 30B A3B',
    description: "Alibaba's open-weight vision-language mixture-of-experts model with 3B active parameters.",
    created: released('2025-10-04'),
    capabilities: ['tool-use', 'vision'],
    api_compatibility: CHAT,
    endpoints: [
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/qwen3-vl-30b-a3b-instruct',
        pricing: {
          input: perMillion('0.15'),
          output: perMillion('0.60'),
          input_cache_read: perMillion('0.075'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
];

/** Every bundled model, grouped by creator. */
