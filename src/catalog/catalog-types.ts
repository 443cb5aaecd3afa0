/**
 * Shapes of the model catalog: the bundled list of real models merged with the operator's config.
 * Prices are decimal strings of USD per token (per image for `image`, per call for `web_search`).
 */
export type ApiCompatibility =
  | 'chat-completion'
  | 'open-responses'
  | 'vendor-messages'
  | 'image-generation'
  | 'embeddings';

export type Capability =
  | 'tool-use'
  | 'implicit-caching'
  | 'file-input'
  | 'image-generation'
  | 'vision'
  | 'reasoning';

export interface PriceTier {
  /** Inclusive lower bound, in prompt tokens. */
  min: number;
  /** Inclusive upper bound, in prompt tokens. */
  max: number;
  /** USD per token within the tier, decimal string. */
  price: string;
}

export interface Pricing {
  input?: string;
  output?: string;
  input_cache_read?: string;
  input_cache_write?: string;
  web_search?: string;
  image?: string;
  input_tiers?: PriceTier[];
  output_tiers?: PriceTier[];
}

/** One hosting provider serving a model, with that provider's own model name and price. */
export interface ModelEndpoint {
  provider: string;
  model: string;
  pricing: Pricing;
  /** Share of first attempts among equally healthy providers (config); absent: catalog order. */
  weight?: number;
  /** The Claude model whose request rules apply when `model` is not a Claude id (config). */
  rulesOf?: string;
}

export interface CatalogModel {
  /** `<creator>/<model-name>`. */
  id: string;
  name: string;
  description?: string;
  /** Unix seconds when the model was released / added. */
  created: number;
  capabilities: Capability[];
  api_compatibility: ApiCompatibility[];
  context_window?: number;
  max_tokens?: number;
  endpoints: ModelEndpoint[];
  /** ISO date (YYYY-MM-DD) on which the prices were checked against the vendor's price page. */
  pricesCheckedOn?: string;
  /** The provider whose own model list this model came from (discovery); its price is unknown, billed 0. */
  discoveredOn?: string;
}
