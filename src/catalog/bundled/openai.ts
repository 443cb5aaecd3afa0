/** OpenAI models in the bundled catalog (sources and conventions: ../bundled-models.ts). */
import type { CatalogModel } from '../catalog-types.js';
import {
  CHAT,
  CHECKED_ON,
  EMBEDDINGS,
  FREE,
  IMAGES,
  perMillion,
  released,
  tiers,
} from './catalog-helpers.js';

const GPT6_CONTEXT = 1_050_000;

export const openai: CatalogModel[] = [
  {
    id: 'openai/gpt-6-astra',
    name: 'GPT-6 Astra',
    description:
      "OpenAI's most capable GPT-6 model, for computer use, long-horizon agents and hard reasoning.",
    created: released('2026-09-03'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning'],
    api_compatibility: CHAT,
    context_window: GPT6_CONTEXT,
    max_tokens: 128_000,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-6-astra',
        pricing: {
          input: perMillion('10'),
          output: perMillion('50'),
          input_cache_read: perMillion('1'),
          input_cache_write: perMillion('12.50'),
          input_tiers: tiers(272_000, GPT6_CONTEXT, '10', '20'),
          output_tiers: tiers(272_000, GPT6_CONTEXT, '50', '75'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-6.2-sol',
    name: 'GPT-6.2 Sol',
    description: "OpenAI's go-to GPT-6 model for everyday work, from coding to powering agents at scale.",
    created: released('2026-11-17'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning'],
    api_compatibility: CHAT,
    context_window: GPT6_CONTEXT,
    max_tokens: 128_000,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-6.2-sol',
        pricing: {
          input: perMillion('2'),
          output: perMillion('10'),
          input_cache_read: perMillion('0.10'),
          input_cache_write: perMillion('2.50'),
          input_tiers: tiers(272_000, GPT6_CONTEXT, '2', '4'),
          output_tiers: tiers(272_000, GPT6_CONTEXT, '10', '15'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-6.1-terra',
    name: 'GPT-6.1 Terra',
    description: 'Fast, efficient GPT-6 model for visual reasoning, computer use and clear writing.',
    created: released('2026-10-26'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning'],
    api_compatibility: CHAT,
    context_window: GPT6_CONTEXT,
    max_tokens: 128_000,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-6.1-terra',
        pricing: {
          input: perMillion('1'),
          output: perMillion('5'),
          input_cache_read: perMillion('0.05'),
          input_cache_write: perMillion('1.25'),
          input_tiers: tiers(272_000, GPT6_CONTEXT, '1', '2'),
          output_tiers: tiers(272_000, GPT6_CONTEXT, '5', '7.50'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-6-luna',
    name: 'GPT-6 Luna',
    description: "OpenAI's most efficient GPT-6 model for focused, high-volume tasks.",
    created: released('2026-09-22'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning'],
    api_compatibility: CHAT,
    context_window: GPT6_CONTEXT,
    max_tokens: 128_000,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-6-luna',
        pricing: {
          input: perMillion('0.10'),
          output: perMillion('0.50'),
          input_cache_read: perMillion('0.01'),
          input_cache_write: perMillion('0.125'),
          input_tiers: tiers(272_000, GPT6_CONTEXT, '0.10', '0.20'),
          output_tiers: tiers(272_000, GPT6_CONTEXT, '0.50', '0.75'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-5.5',
    name: 'GPT-5.5',
    description:
      'Frontier GPT-5 series model with adaptive reasoning and strong agentic and long-context work.',
    created: released('2026-04-23'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning', 'implicit-caching'],
    api_compatibility: CHAT,
    context_window: GPT6_CONTEXT,
    max_tokens: 128_000,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-5.5',
        pricing: {
          input: perMillion('5'),
          output: perMillion('30'),
          input_cache_read: perMillion('0.50'),
          input_tiers: tiers(272_000, GPT6_CONTEXT, '5', '10'),
          output_tiers: tiers(272_000, GPT6_CONTEXT, '30', '45'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-4.1',
    name: 'GPT-4.1',
    description:
      'Non-reasoning GPT model tuned for coding, instruction following and 1M-token context (API shutdown 2027-01-14).',
    created: released('2025-04-14'),
    capabilities: ['tool-use', 'vision', 'file-input', 'implicit-caching'],
    api_compatibility: CHAT,
    context_window: 1_047_576,
    max_tokens: 32_768,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-4.1',
        pricing: { input: perMillion('2'), output: perMillion('8'), input_cache_read: perMillion('0.50') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-4.1-mini',
    name: 'GPT-4.1 mini',
    description: 'Smaller, cheaper GPT-4.1 with the same 1M-token context (API shutdown 2027-01-14).',
    created: released('2025-04-14'),
    capabilities: ['tool-use', 'vision', 'file-input', 'implicit-caching'],
    api_compatibility: CHAT,
    context_window: 1_047_576,
    max_tokens: 32_768,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-4.1-mini',
        pricing: {
          input: perMillion('0.40'),
          output: perMillion('1.60'),
          input_cache_read: perMillion('0.10'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-4o',
    name: 'GPT-4o',
    description: 'Multimodal GPT-4-class model accepting text and images (API shutdown 2027-01-14).',
    created: released('2024-05-13'),
    capabilities: ['tool-use', 'vision', 'file-input', 'implicit-caching'],
    api_compatibility: CHAT,
    context_window: 128_000,
    max_tokens: 16_384,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-4o',
        pricing: {
          input: perMillion('2.50'),
          output: perMillion('10'),
          input_cache_read: perMillion('1.25'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-4o-mini',
    name: 'GPT-4o mini',
    description: 'Small, low-cost multimodal GPT-4o variant (API shutdown 2027-01-14).',
    created: released('2024-07-18'),
    capabilities: ['tool-use', 'vision', 'file-input', 'implicit-caching'],
    api_compatibility: CHAT,
    context_window: 128_000,
    max_tokens: 16_384,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-4o-mini',
        pricing: {
          input: perMillion('0.15'),
          output: perMillion('0.60'),
          input_cache_read: perMillion('0.075'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-oss-120b',
    name: 'gpt-oss-120b',
    description: "OpenAI's 120B-parameter open-weight reasoning model with tool use.",
    created: released('2025-08-05'),
    capabilities: ['tool-use', 'reasoning'],
    api_compatibility: CHAT,
    context_window: 131_072,
    max_tokens: 65_536,
    endpoints: [
      {
        provider: 'groq',
        model: 'openai/gpt-oss-120b',
        pricing: { input: perMillion('0.15'), output: perMillion('0.60') },
      },
      {
        provider: 'together',
        model: 'openai/gpt-oss-120b',
        pricing: { input: perMillion('0.15'), output: perMillion('0.60') },
      },
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/gpt-oss-120b',
        pricing: {
          input: perMillion('0.15'),
          output: perMillion('0.60'),
          input_cache_read: perMillion('0.015'),
        },
      },
      { provider: 'ollama', model: 'gpt-oss:120b', pricing: FREE },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-oss-20b',
    name: 'gpt-oss-20b',
    description: "OpenAI's 20B-parameter open-weight reasoning model for low-latency and local use.",
    created: released('2025-08-05'),
    capabilities: ['tool-use', 'reasoning'],
    api_compatibility: CHAT,
    context_window: 131_072,
    max_tokens: 65_536,
    endpoints: [
      {
        provider: 'groq',
        model: 'openai/gpt-oss-20b',
        pricing: { input: perMillion('0.075'), output: perMillion('0.30') },
      },
      {
        provider: 'fireworks',
        model: 'accounts/fireworks/models/gpt-oss-20b',
        pricing: {
          input: perMillion('0.07'),
          output: perMillion('0.30'),
          input_cache_read: perMillion('0.035'),
        },
      },
      { provider: 'ollama', model: 'gpt-oss:20b', pricing: FREE },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/text-embedding-3-large',
    name: 'text-embedding-3-large',
    description: "OpenAI's most capable text embedding model (up to 3072 dimensions).",
    created: released('2024-01-25'),
    capabilities: [],
    api_compatibility: EMBEDDINGS,
    context_window: 8_191,
    endpoints: [
      { provider: 'openai', model: 'text-embedding-3-large', pricing: { input: perMillion('0.13') } },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/text-embedding-3-small',
    name: 'text-embedding-3-small',
    description: "OpenAI's small, low-cost text embedding model (1536 dimensions).",
    created: released('2024-01-25'),
    capabilities: [],
    api_compatibility: EMBEDDINGS,
    context_window: 8_191,
    endpoints: [
      { provider: 'openai', model: 'text-embedding-3-small', pricing: { input: perMillion('0.02') } },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-image-2.6-sunburst',
    name: 'GPT-Image-2.6 Sunburst',
    description:
      'OpenAI image generation and editing model for detailed compositions; output is billed per image token.',
    created: released('2026-11-04'),
    capabilities: ['image-generation'],
    api_compatibility: IMAGES,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-image-2.6-sunburst',
        pricing: { input: perMillion('5'), output: perMillion('30'), input_cache_read: perMillion('1.25') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'openai/gpt-image-2.6-flare',
    name: 'GPT-Image-2.6 Flare',
    description:
      'Fast OpenAI image generation and editing model for drafts and iteration; output is billed per image token.',
    created: released('2026-11-04'),
    capabilities: ['image-generation'],
    api_compatibility: IMAGES,
    endpoints: [
      {
        provider: 'openai',
        model: 'gpt-image-2.6-flare',
        pricing: { input: perMillion('5'), output: perMillion('30'), input_cache_read: perMillion('1.25') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
];
