/**
 * Migration 0011: fixed-window counters for rate limits, kept in the store so that every server
 * process sharing one database counts against the same limit. One row per limited subject (for
 * example a login address or an API key): the start of its current window and how many events
 * fell in it. Rows are upserted atomically; a new window overwrites the old one in place.
 */
import type { Kysely, Migration } from 'kysely';

export function rateLimitCountersMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('rate_limit_counters')
        .addColumn('subject', 'text', (column) => column.primaryKey())
        // Milliseconds since the epoch; bigint so PostgreSQL holds it, read back as a number.
        .addColumn('window_started_at', 'bigint', (column) => column.notNull())
        .addColumn('count', 'integer', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('rate_limit_counters_window_index').on('rate_limit_counters').column('window_started_at').execute();
    },
  };
}
