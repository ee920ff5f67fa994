/**
 * Migration 0074: `usage_daily`, the daily roll-up of `usage_logs` (one row per day, organization,
 * user, assistant and model, kept in the same transaction as each usage row) that GET /api/usage
 * reads instead of scanning the logs; and `model_prices`, an organization's own prices per model
 * (docs/usage.md). Counters are bigints: a busy organization's day can pass 2^31 micro-dollars.
 * Existing usage rows are rolled up once, priced at nothing (no price table existed when they ran).
 */
import { sql, type Kysely, type Migration } from 'kysely';

export function usageDailyAndModelPricesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('usage_daily')
        .addColumn('day', 'text', (column) => column.notNull())
        .addColumn('organization_id', 'integer', (column) => column.notNull())
        .addColumn('user_id', 'integer', (column) => column.notNull())
        .addColumn('assistant_id', 'integer', (column) => column.notNull())
        .addColumn('model', 'text', (column) => column.notNull())
        .addColumn('requests', 'bigint', (column) => column.notNull())
        .addColumn('prompt_tokens', 'bigint', (column) => column.notNull())
        .addColumn('completion_tokens', 'bigint', (column) => column.notNull())
        .addColumn('cost_micro_usd', 'bigint', (column) => column.notNull())
        .addPrimaryKeyConstraint('usage_daily_key', ['day', 'organization_id', 'user_id', 'assistant_id', 'model'])
        .execute();
      // Reports read one organization's, one person's or one assistant's days; the primary key serves the whole server's.
      await db.schema.createIndex('usage_daily_organization_index').on('usage_daily').columns(['organization_id', 'day']).execute();
      await db.schema.createIndex('usage_daily_user_index').on('usage_daily').columns(['user_id', 'day']).execute();
      await db.schema.createIndex('usage_daily_assistant_index').on('usage_daily').columns(['assistant_id', 'day']).execute();
      await db.schema
        .createTable('model_prices')
        .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
        .addColumn('model', 'text', (column) => column.notNull())
        .addColumn('input_usd_per_million', 'double precision', (column) => column.notNull())
        .addColumn('output_usd_per_million', 'double precision', (column) => column.notNull())
        .addPrimaryKeyConstraint('model_prices_key', ['organization_id', 'model'])
        .execute();
      await sql`
        INSERT INTO usage_daily (day, organization_id, user_id, assistant_id, model, requests, prompt_tokens, completion_tokens, cost_micro_usd)
        SELECT substr(created_at, 1, 10), organization_id, user_id, assistant_id, model, count(*), sum(prompt_tokens), sum(completion_tokens), 0
        FROM usage_logs
        GROUP BY substr(created_at, 1, 10), organization_id, user_id, assistant_id, model
      `.execute(db);
    },
  };
}
