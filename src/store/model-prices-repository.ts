/** An organization's own model prices (migration 0074): read when usage is priced, replaced whole by its admins. */
import type { Kysely } from 'kysely';
import type { Database, ModelPricesTable } from './schema.js';

export async function listModelPrices(db: Kysely<Database>, organizationIds: readonly number[]): Promise<ModelPricesTable[]> {
  if (organizationIds.length === 0) return [];
  return db
    .selectFrom('model_prices')
    .selectAll()
    .where('organization_id', 'in', [...organizationIds])
    .orderBy('model')
    .execute();
}

/**
 * Replaces the organization's whole table: drops the models no longer listed and upserts the rest,
 * so two admins saving at once never collide on a key (the last to commit wins each model). The
 * caller runs it in the transaction of its audit entry.
 */
export async function replaceModelPrices(
  db: Kysely<Database>,
  organizationId: number,
  prices: readonly Omit<ModelPricesTable, 'organization_id'>[],
): Promise<void> {
  let removal = db.deleteFrom('model_prices').where('organization_id', '=', organizationId);
  if (prices.length > 0)
    removal = removal.where(
      'model',
      'not in',
      prices.map((price) => price.model),
    );
  await removal.execute();
  for (const price of prices)
    await db
      .insertInto('model_prices')
      .values({ ...price, organization_id: organizationId })
      .onConflict((conflict) =>
        conflict.columns(['organization_id', 'model']).doUpdateSet({
          input_usd_per_million: price.input_usd_per_million,
          output_usd_per_million: price.output_usd_per_million,
        }),
      )
      .execute();
}
