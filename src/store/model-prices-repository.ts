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

/** Replaces the organization's whole table; the caller runs it in the transaction of its audit entry. */
export async function replaceModelPrices(
  db: Kysely<Database>,
  organizationId: number,
  prices: readonly Omit<ModelPricesTable, 'organization_id'>[],
): Promise<void> {
  await db.deleteFrom('model_prices').where('organization_id', '=', organizationId).execute();
  if (prices.length > 0)
    await db
      .insertInto('model_prices')
      .values(prices.map((price) => ({ ...price, organization_id: organizationId })))
      .execute();
}
