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

import { anthropic } from './bundled/anthropic.js';
import { google } from './bundled/google.js';
import { deepseek, meta, mistral, qwen, xai } from './bundled/open-weights.js';
import { openai } from './bundled/openai.js';
import type { CatalogModel } from './catalog-types.js';

export { perMillion } from './bundled/catalog-helpers.js';

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
