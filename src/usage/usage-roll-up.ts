/**
 * Turns usage rows into increments of the daily roll-up, each priced with its organization's own
 * price for the model, else the default list price, else nothing (docs/usage.md). Called by the
 * run-record writer inside the transaction that inserts the rows, so the roll-up never disagrees
 * with usage_logs. Cost is kept in whole micro-dollars: a sum of integers is exact however many
 * processes add to it.
 */
import type { Insertable, Kysely } from 'kysely';
import { listModelPrices } from '../store/model-prices-repository.js';
import type { Database, UsageLogsTable } from '../store/schema.js';
import { addDailyUsage, keyOf, type DailyUsageIncrement } from '../store/usage-daily-repository.js';
import { DEFAULT_MODEL_PRICES, priceOf, type ModelPrice } from './default-model-prices.js';

/** Micro-dollars for these tokens: tokens × dollars per million tokens is exactly micro-dollars. */
export function costInMicroDollars(price: ModelPrice | undefined, promptTokens: number, completionTokens: number): number {
  if (price === undefined) return 0;
  return Math.round(promptTokens * price.input_usd_per_million + completionTokens * price.output_usd_per_million);
}

async function pricesByOrganization(db: Kysely<Database>, organizationIds: number[]): Promise<Map<number, ModelPrice[]>> {
  const byOrganization = new Map<number, ModelPrice[]>();
  for (const row of await listModelPrices(db, organizationIds)) {
    const prices = byOrganization.get(row.organization_id) ?? [];
    prices.push(row);
    byOrganization.set(row.organization_id, prices);
  }
  return byOrganization;
}

/** The organization's own price wins; a model it did not price falls back to the defaults. */
function priceFor(own: readonly ModelPrice[] | undefined, model: string): ModelPrice | undefined {
  return (own === undefined ? undefined : priceOf(own, model)) ?? priceOf(DEFAULT_MODEL_PRICES, model);
}

export async function rollUpUsage(db: Kysely<Database>, rows: readonly Insertable<UsageLogsTable>[]): Promise<void> {
  if (rows.length === 0) return;
  const prices = await pricesByOrganization(db, [...new Set(rows.map((row) => row.organization_id))]);
  const increments = new Map<string, DailyUsageIncrement>();
  for (const row of rows) {
    const key = {
      day: row.created_at.slice(0, 10),
      organization_id: row.organization_id,
      user_id: row.user_id,
      assistant_id: row.assistant_id,
      model: row.model,
    };
    const cost = costInMicroDollars(priceFor(prices.get(row.organization_id), row.model), row.prompt_tokens, row.completion_tokens);
    const increment = increments.get(keyOf(key)) ?? { ...key, requests: 0, prompt_tokens: 0, completion_tokens: 0, cost_micro_usd: 0 };
    increment.requests += 1;
    increment.prompt_tokens += row.prompt_tokens;
    increment.completion_tokens += row.completion_tokens;
    increment.cost_micro_usd += cost;
    increments.set(keyOf(key), increment);
  }
  await addDailyUsage(db, [...increments.values()]);
}
