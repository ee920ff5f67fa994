/**
 * Migration 0078, two parts of counting usage (docs/usage.md):
 * - `usage_monthly` and `usage_daily_models`, roll-ups of usage_daily kept in the same transaction
 *   as it: by calendar month (for reports by person or assistant over whole months) and by
 *   organization, day and model (for reports by day or model, and totals). Filled once from
 *   usage_daily. usage_daily's organization index becomes a covering one, so the days around the
 *   whole months of a report by person or assistant are read from the index alone.
 * - `ingestion_jobs.requested_by`, the person who uploaded the document, so that the embeddings
 *   its ingestion computes are counted to them (null for jobs queued before: counted to the
 *   knowledge base's owner).
 */
import { sql, type Kysely, type Migration } from 'kysely';

const COUNTERS = ['requests', 'prompt_tokens', 'completion_tokens', 'cost_micro_usd'] as const;

export function usageReportsAndUploadersMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      let monthly = db.schema
        .createTable('usage_monthly')
        .addColumn('month', 'text', (column) => column.notNull())
        .addColumn('organization_id', 'integer', (column) => column.notNull())
        .addColumn('user_id', 'integer', (column) => column.notNull())
        .addColumn('assistant_id', 'integer', (column) => column.notNull())
        .addColumn('model', 'text', (column) => column.notNull());
      for (const counter of COUNTERS) monthly = monthly.addColumn(counter, 'bigint', (column) => column.notNull());
      await monthly
        .addPrimaryKeyConstraint('usage_monthly_key', ['month', 'organization_id', 'user_id', 'assistant_id', 'model'])
        .execute();
      // Covering: a report by person or assistant over an organization's months reads this index alone.
      await db.schema
        .createIndex('usage_monthly_organization_index')
        .on('usage_monthly')
        .columns(['organization_id', 'month', 'user_id', 'assistant_id', 'model', ...COUNTERS])
        .execute();
      await db.schema.createIndex('usage_monthly_user_index').on('usage_monthly').columns(['user_id', 'month']).execute();
      await db.schema.createIndex('usage_monthly_assistant_index').on('usage_monthly').columns(['assistant_id', 'month']).execute();
      let models = db.schema
        .createTable('usage_daily_models')
        .addColumn('day', 'text', (column) => column.notNull())
        .addColumn('organization_id', 'integer', (column) => column.notNull())
        .addColumn('model', 'text', (column) => column.notNull());
      for (const counter of COUNTERS) models = models.addColumn(counter, 'bigint', (column) => column.notNull());
      await models.addPrimaryKeyConstraint('usage_daily_models_key', ['organization_id', 'day', 'model']).execute();
      await sql`
        INSERT INTO usage_monthly (month, organization_id, user_id, assistant_id, model, requests, prompt_tokens, completion_tokens, cost_micro_usd)
        SELECT substr(day, 1, 7), organization_id, user_id, assistant_id, model, sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cost_micro_usd)
        FROM usage_daily
        GROUP BY substr(day, 1, 7), organization_id, user_id, assistant_id, model
      `.execute(db);
      await sql`
        INSERT INTO usage_daily_models (day, organization_id, model, requests, prompt_tokens, completion_tokens, cost_micro_usd)
        SELECT day, organization_id, model, sum(requests), sum(prompt_tokens), sum(completion_tokens), sum(cost_micro_usd)
        FROM usage_daily
        GROUP BY day, organization_id, model
      `.execute(db);
      await db.schema.dropIndex('usage_daily_organization_index').execute();
      await db.schema
        .createIndex('usage_daily_organization_index')
        .on('usage_daily')
        .columns(['organization_id', 'day', 'user_id', 'assistant_id', 'model', ...COUNTERS])
        .execute();
      await db.schema.alterTable('ingestion_jobs').addColumn('requested_by', 'integer').execute();
    },
  };
}
