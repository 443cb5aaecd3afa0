/** Anthropic (Claude) models in the bundled catalog (sources and conventions: ../bundled-models.ts). */
import type { CatalogModel } from '../catalog-types.js';
import { CHECKED_ON, CLAUDE, perMillion, released, tiers } from './catalog-helpers.js';

const CLAUDE_CONTEXT = 1_000_000;

export const anthropic: CatalogModel[] = [
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
