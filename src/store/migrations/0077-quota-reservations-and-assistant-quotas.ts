/**
 * Migration 0077: what the token and cost quotas need (docs/quotas.md). `quota_reservations`
 * holds the runs admitted and not yet settled, each with the tokens and micro-dollars it is
 * expected to use and an expiry, so a process killed mid-run holds no quota for ever;
 * `assistant_quotas` is an assistant's monthly cost limit and alert thresholds, set by its owner;
 * `assistant_quota_alerts` records each threshold the first time it is crossed in a month. The
 * assistant rows go with their assistant (foreign key cascade).
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function quotaReservationsAndAssistantQuotasMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withIdColumn(db.schema.createTable('quota_reservations'), dialect)
        .addColumn('organization_id', 'integer', (column) => column.notNull())
        .addColumn('user_id', 'integer', (column) => column.notNull())
        .addColumn('assistant_id', 'integer', (column) => column.notNull())
        .addColumn('tokens', 'bigint', (column) => column.notNull())
        .addColumn('cost_micro_usd', 'bigint', (column) => column.notNull())
        .addColumn('expires_at', 'text', (column) => column.notNull())
        .execute();
      // Every admission reads and tidies one organization's reservations.
      await db.schema
        .createIndex('quota_reservations_organization_index')
        .on('quota_reservations')
        .columns(['organization_id', 'expires_at'])
        .execute();
      await db.schema
        .createTable('assistant_quotas')
        .addColumn('assistant_id', 'integer', (column) => column.primaryKey().references('assistants.id').onDelete('cascade'))
        .addColumn('cost_per_month_usd', 'double precision', (column) => column.notNull())
        .addColumn('alert_thresholds', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createTable('assistant_quota_alerts')
        .addColumn('assistant_id', 'integer', (column) => column.notNull().references('assistants.id').onDelete('cascade'))
        .addColumn('month', 'text', (column) => column.notNull())
        .addColumn('threshold', 'integer', (column) => column.notNull())
        .addColumn('crossed_at', 'text', (column) => column.notNull())
        .addPrimaryKeyConstraint('assistant_quota_alerts_key', ['assistant_id', 'month', 'threshold'])
        .execute();
    },
  };
}
