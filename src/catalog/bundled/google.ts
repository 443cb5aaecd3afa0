/** Google (Gemini) models in the bundled catalog (sources and conventions: ../bundled-models.ts). */
import type { CatalogModel } from '../catalog-types.js';
import { CHAT, CHECKED_ON, EMBEDDINGS, IMAGES, perMillion, released, tiers } from './catalog-helpers.js';

const GEMINI_CONTEXT = 1_048_576;
const GEMINI_CHAT_CAPABILITIES: CatalogModel['capabilities'] = [
  'tool-use',
  'vision',
  'file-input',
  'reasoning',
  'implicit-caching',
];

export const google: CatalogModel[] = [
  {
    id: 'google/gemini-3.1-pro-preview',
    name: 'Gemini 3.1 Pro Preview',
    description:
      "Google's Gemini 3.1 Pro for reasoning, software engineering and precise multi-step agentic work.",
    created: released('2026-02-19'),
    capabilities: GEMINI_CHAT_CAPABILITIES,
    api_compatibility: CHAT,
    context_window: GEMINI_CONTEXT,
    max_tokens: 65_536,
    endpoints: [
      {
        provider: 'gemini',
        model: 'gemini-3.1-pro-preview',
        pricing: {
          input: perMillion('2'),
          output: perMillion('12'),
          input_tiers: tiers(200_000, GEMINI_CONTEXT, '2', '4'),
          output_tiers: tiers(200_000, GEMINI_CONTEXT, '12', '18'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'google/gemini-3.5-flash-lite',
    name: 'Gemini 3.5 Flash-Lite',
    description: 'Low-latency, low-cost Gemini model for high-volume sub-agent tasks and document parsing.',
    created: released('2026-07-21'),
    capabilities: GEMINI_CHAT_CAPABILITIES,
    api_compatibility: CHAT,
    context_window: GEMINI_CONTEXT,
    max_tokens: 65_536,
    endpoints: [
      {
        provider: 'gemini',
        model: 'gemini-3.5-flash-lite',
        pricing: { input: perMillion('0.30'), output: perMillion('2.50') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'google/gemini-2.5-pro',
    name: 'Gemini 2.5 Pro',
    description: "Google's Gemini 2.5 thinking model for complex reasoning and coding over long context.",
    created: released('2025-06-17'),
    capabilities: GEMINI_CHAT_CAPABILITIES,
    api_compatibility: CHAT,
    context_window: GEMINI_CONTEXT,
    max_tokens: 65_536,
    endpoints: [
      {
        provider: 'gemini',
        model: 'gemini-2.5-pro',
        pricing: {
          input: perMillion('1.25'),
          output: perMillion('10'),
          input_tiers: tiers(200_000, GEMINI_CONTEXT, '1.25', '2.50'),
          output_tiers: tiers(200_000, GEMINI_CONTEXT, '10', '15'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'google/gemini-2.5-flash',
    name: 'Gemini 2.5 Flash',
    description: 'Hybrid-reasoning Gemini 2.5 workhorse with a thinking budget and 1M-token context.',
    created: released('2025-06-17'),
    capabilities: GEMINI_CHAT_CAPABILITIES,
    api_compatibility: CHAT,
    context_window: GEMINI_CONTEXT,
    max_tokens: 65_536,
    endpoints: [
      {
        provider: 'gemini',
        model: 'gemini-2.5-flash',
        pricing: { input: perMillion('0.30'), output: perMillion('2.50') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'google/gemini-2.5-flash-lite',
    name: 'Gemini 2.5 Flash-Lite',
    description: 'Fastest, lowest-cost Gemini 2.5 model for high-throughput tasks.',
    created: released('2025-07-22'),
    capabilities: GEMINI_CHAT_CAPABILITIES,
    api_compatibility: CHAT,
    context_window: GEMINI_CONTEXT,
    max_tokens: 65_536,
    endpoints: [
      {
        provider: 'gemini',
        model: 'gemini-2.5-flash-lite',
        pricing: { input: perMillion('0.10'), output: perMillion('0.40') },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'google/gemini-embedding-001',
    name: 'Gemini Embedding 001',
    description: "Google's multilingual text embedding model for search, retrieval and classification.",
    created: released('2025-07-14'),
    capabilities: [],
    api_compatibility: EMBEDDINGS,
    context_window: 2_048,
    endpoints: [
      { provider: 'gemini', model: 'gemini-embedding-001', pricing: { input: perMillion('0.15') } },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'google/gemini-3-pro-image',
    name: 'Gemini 3 Pro Image (Nano Banana Pro)',
    description: "Google's Gemini 3 Pro image generation and editing model; priced per 1K/2K output image.",
    created: released('2025-11-20'),
    capabilities: ['image-generation', 'vision'],
    api_compatibility: IMAGES,
    endpoints: [{ provider: 'gemini', model: 'gemini-3-pro-image', pricing: { image: '0.134' } }],
    pricesCheckedOn: CHECKED_ON,
  },
];
