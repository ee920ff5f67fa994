/**
 * Prices for well-known models, used when an organization has not set its own (docs/usage.md).
 * They are approximate public list prices in US dollars per million tokens as of DEFAULT_PRICES_AS_OF,
 * for estimates only: an organization that pays other prices sets them in its own table. A model
 * named in neither costs nothing, so its tokens are still counted but priced at zero.
 */

export interface ModelPrice {
  model: string;
  input_usd_per_million: number;
  output_usd_per_million: number;
}

export const DEFAULT_PRICES_AS_OF = '2025-06-01';

export const DEFAULT_MODEL_PRICES: readonly ModelPrice[] = [
  { model: 'gpt-4o', input_usd_per_million: 2.5, output_usd_per_million: 10 },
  { model: 'gpt-4o-mini', input_usd_per_million: 0.15, output_usd_per_million: 0.6 },
  { model: 'gpt-4.1', input_usd_per_million: 2, output_usd_per_million: 8 },
  { model: 'gpt-4.1-mini', input_usd_per_million: 0.4, output_usd_per_million: 1.6 },
  { model: 'gpt-4.1-nano', input_usd_per_million: 0.1, output_usd_per_million: 0.4 },
  { model: 'o3', input_usd_per_million: 2, output_usd_per_million: 8 },
  { model: 'o4-mini', input_usd_per_million: 1.1, output_usd_per_million: 4.4 },
  { model: 'text-embedding-3-small', input_usd_per_million: 0.02, output_usd_per_million: 0 },
  { model: 'text-embedding-3-large', input_usd_per_million: 0.13, output_usd_per_million: 0 },
  { model: 'claude-3-5-haiku', input_usd_per_million: 0.8, output_usd_per_million: 4 },
  { model: 'claude-sonnet-4', input_usd_per_million: 3, output_usd_per_million: 15 },
  { model: 'mistral-small', input_usd_per_million: 0.1, output_usd_per_million: 0.3 },
];

/**
 * The price of a model: an exact name first, then the longest listed name it extends with a dash
 * (a dated snapshot such as `gpt-4o-mini-2024-07-18` is priced as `gpt-4o-mini`); undefined when none.
 */
export function priceOf(prices: readonly ModelPrice[], model: string): ModelPrice | undefined {
  const exact = prices.find((price) => price.model === model);
  if (exact !== undefined) return exact;
  let best: ModelPrice | undefined;
  for (const price of prices)
    if (model.startsWith(`${price.model}-`) && (best === undefined || price.model.length > best.model.length)) best = price;
  return best;
}
