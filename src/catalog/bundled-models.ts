/**
 * The bundled catalog: real, current models with their hosts' list prices. The operator's config is merged
 * over it by id (CONTRACT §2), so an operator can correct or extend any entry without a release.
 *
 * Prices are decimal strings of USD per token (CONTRACT §5); `image` is USD per image. Vendors publish
 * USD per million tokens, so every figure below is written as `perMillion('<vendor figure>')`, which
 * shifts the decimal point of the string six places (no floating point, no rounding).
 *
 * Conventions:
 * - `input_cache_write` is the default-TTL write price (Anthropic 5 minutes, OpenAI 30 minutes).
 * - `input_tiers` / `output_tiers`: the price of every token of a request, chosen by its prompt length
 *   (OpenAI above 272K, Gemini above 200K, Claude Haiku 5.5 above 100K input tokens). The flat
 *   `input` / `output` repeat the first tier; cache prices are the short-prompt ones (vendors double
 *   them for long prompts).
 * - DeepSeek bills peak and off-peak hours; the peak (higher) price is used, off-peak is half.
 * - Ollama endpoints run open weights locally and cost nothing.
 *
 * Sources: stored copies of the vendors' own pages, read on `CHECKED_ON`:
 * OpenAI developers.openai.com/api/docs/models/<id> and /api/docs/deprecations (GPT-6.2 Sol page of
 * 2026-11-17); Anthropic platform.claude.com/docs/en/about-claude/pricing and models/<id>/overview;
 * Google ai.google.dev/gemini-api/docs/pricing (as read 2026-10-07) and models/<id>; Mistral model cards
 * and mistral.ai pricing; DeepSeek api-docs.deepseek.com/quick_start/pricing; xAI docs.x.ai/developers;
 * Groq console.groq.com/docs/models; Together docs.together.ai serverless models; Fireworks
 * docs.fireworks.ai/serverless/pricing. Where only part of a vendor page could be read, the figure was
 * taken from listings that quote that page (LiteLLM, Vercel AI Gateway, OpenRouter) and agree with it.
 * Models that were shut down, or whose price is a promotion ending within weeks, are left out.
 */
import type { ApiCompatibility, CatalogModel, PriceTier } from './catalog-types.js';

/** Day on which every price below was checked against the sources listed above. */
const CHECKED_ON = '2026-11-22';

const CHAT: ApiCompatibility[] = ['chat-completion', 'open-responses'];
const CLAUDE: ApiCompatibility[] = ['chat-completion', 'open-responses', 'vendor-messages'];
const EMBEDDINGS: ApiCompatibility[] = ['embeddings'];
const IMAGES: ApiCompatibility[] = ['image-generation'];
const FREE = { input: '0', output: '0' };

/** Converts a price in USD per million tokens ("2.50") to USD per token ("0.0000025"), exactly. */
export function perMillion(usdPerMillion: string): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(usdPerMillion);
  if (!match) throw new Error(`not a decimal price: "${usdPerMillion}"`);
  const [, whole = '', fraction = ''] = match;
  const digits = (whole + fraction).replace(/^0+/, '');
  if (digits === '') return '0';
  const scale = fraction.length + 6;
  const padded = digits.padStart(scale + 1, '0');
  const integerPart = padded.slice(0, padded.length - scale);
  const fractionPart = padded.slice(padded.length - scale).replace(/0+$/, '');
  return fractionPart ? `${integerPart}.${fractionPart}` : integerPart;
}

/** Two prompt-length tiers: prompts up to `threshold` tokens, then up to the context window. */
function tiers(threshold: number, contextWindow: number, short: string, long: string): PriceTier[] {
  return [
    { min: 0, max: threshold, price: perMillion(short) },
    { min: threshold + 1, max: contextWindow, price: perMillion(long) },
  ];
}

/** Unix seconds of a release day (UTC). */
function released(isoDay: string): number {
  return Date.parse(`${isoDay}T00:00:00Z`) / 1000;
}

const GPT6_CONTEXT = 1_050_000;

const openai: CatalogModel[] = [
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

const CLAUDE_CONTEXT = 1_000_000;

const anthropic: CatalogModel[] = [
  {
    id: 'anthropic/claude-fable-5.1',
    name: 'Claude Fable 5.1',
    description: "Anthropic's most capable model, with always-on adaptive thinking for the hardest work.",
    created: released('2026-09-01'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning'],
    api_compatibility: CLAUDE,
    context_window: CLAUDE_CONTEXT,
    max_tokens: 128_000,
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-fable-5-1',
        pricing: {
          input: perMillion('10'),
          output: perMillion('50'),
          input_cache_read: perMillion('0.25'),
          input_cache_write: perMillion('12.50'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'anthropic/claude-opus-5.5',
    name: 'Claude Opus 5.5',
    description: 'Current Claude Opus model, built for long-running agentic coding and knowledge work.',
    created: released('2026-09-22'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning'],
    api_compatibility: CLAUDE,
    context_window: CLAUDE_CONTEXT,
    max_tokens: 128_000,
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-opus-5-5',
        pricing: {
          input: perMillion('4'),
          output: perMillion('20'),
          input_cache_read: perMillion('0.20'),
          input_cache_write: perMillion('5'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'anthropic/claude-sonnet-5.5',
    name: 'Claude Sonnet 5.5',
    description: 'Current Claude Sonnet model, the best combination of speed and intelligence.',
    created: released('2026-09-28'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning'],
    api_compatibility: CLAUDE,
    context_window: CLAUDE_CONTEXT,
    max_tokens: 128_000,
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-sonnet-5-5',
        pricing: {
          input: perMillion('2'),
          output: perMillion('10'),
          input_cache_read: perMillion('0.10'),
          input_cache_write: perMillion('2.50'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'anthropic/claude-haiku-5.5',
    name: 'Claude Haiku 5.5',
    description:
      'Current Claude Haiku model for high-volume, latency-sensitive classification, extraction and routing.',
    created: released('2026-10-07'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning'],
    api_compatibility: CLAUDE,
    context_window: CLAUDE_CONTEXT,
    max_tokens: 128_000,
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-haiku-5-5',
        pricing: {
          input: perMillion('0.10'),
          output: perMillion('0.50'),
          input_cache_read: perMillion('0.01'),
          input_cache_write: perMillion('0.125'),
          input_tiers: tiers(100_000, CLAUDE_CONTEXT, '0.10', '0.50'),
          output_tiers: tiers(100_000, CLAUDE_CONTEXT, '0.50', '2.50'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'anthropic/claude-opus-5',
    name: 'Claude Opus 5',
    description: 'Previous Claude Opus model (legacy) for complex agentic coding and enterprise work.',
    created: released('2026-07-24'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning'],
    api_compatibility: CLAUDE,
    context_window: CLAUDE_CONTEXT,
    max_tokens: 128_000,
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-opus-5',
        pricing: {
          input: perMillion('5'),
          output: perMillion('25'),
          input_cache_read: perMillion('0.50'),
          input_cache_write: perMillion('6.25'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'anthropic/claude-sonnet-5',
    name: 'Claude Sonnet 5',
    description: 'Previous Claude Sonnet model (legacy) balancing speed and intelligence.',
    created: released('2026-06-30'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning'],
    api_compatibility: CLAUDE,
    context_window: CLAUDE_CONTEXT,
    max_tokens: 128_000,
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-sonnet-5',
        pricing: {
          input: perMillion('2'),
          output: perMillion('10'),
          input_cache_read: perMillion('0.20'),
          input_cache_write: perMillion('2.50'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
  {
    id: 'anthropic/claude-haiku-4.5',
    name: 'Claude Haiku 4.5',
    description: 'Previous fast, low-cost Claude model (legacy) with extended thinking.',
    created: released('2025-10-15'),
    capabilities: ['tool-use', 'vision', 'file-input', 'reasoning'],
    api_compatibility: CLAUDE,
    context_window: 200_000,
    max_tokens: 64_000,
    endpoints: [
      {
        provider: 'anthropic',
        model: 'claude-haiku-4-5',
        pricing: {
          input: perMillion('1'),
          output: perMillion('5'),
          input_cache_read: perMillion('0.10'),
          input_cache_write: perMillion('1.25'),
        },
      },
    ],
    pricesCheckedOn: CHECKED_ON,
  },
];

const GEMINI_CONTEXT = 1_048_576;
const GEMINI_CHAT_CAPABILITIES: CatalogModel['capabilities'] = [
  'tool-use',
  'vision',
  'file-input',
  'reasoning',
  'implicit-caching',
];

const google: CatalogModel[] = [
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

const mistral: CatalogModel[] = [
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

const meta: CatalogModel[] = [
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

const deepseek: CatalogModel[] = [
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

const xai: CatalogModel[] = [
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

const qwen: CatalogModel[] = [
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
export const bundledModels: CatalogModel[] = [
  ...openai,
  ...anthropic,
  ...google,
  ...mistral,
  ...meta,
  ...deepseek,
  ...xai,
  ...qwen,
];
