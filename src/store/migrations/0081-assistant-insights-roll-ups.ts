/**
 * Migration 0081: the roll-ups behind an assistant's insights (docs/assistant-insights.md), written
 * when a chat answer is kept, so GET /api/assistants/{id}/insights reads a few hundred rows instead
 * of scanning messages. `assistant_insights_daily` holds one row of counters per assistant and UTC
 * day; `assistant_insights_items` holds counts per assistant, kind, day and item: the learners who
 * asked that day (for distinct learners), the answer-time histogram's buckets, the sources used and
 * the question terms (topics). `assistant_insights_monthly_items` holds the same counts per
 * calendar month, so a long range reads twelve months and a few edge days instead of every day's
 * rows. Counters are bigints: they are only ever added to.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';

const DAILY_COUNTERS = [
  'chats',
  'questions',
  'answers',
  'prompt_tokens',
  'completion_tokens',
  'cost_micro_usd',
  'tool_calls',
  'tool_failures',
  'retrieval_questions',
  'retrieval_empty',
  'feedback_up',
  'feedback_down',
] as const;

/**
 * Reads take one assistant's rows of a kind over a range of days or months, and need every column:
 * SQLite keeps the rows in key order (WITHOUT ROWID) and PostgreSQL gets an index covering them,
 * so a range is read from contiguous pages rather than one row lookup each, scattered among the
 * chat messages written in between.
 */
function clusteredByKey(dialect: Dialect) {
  return dialect === 'sqlite' ? sql`without rowid` : sql``;
}

async function coveringIndex(db: Kysely<unknown>, dialect: Dialect, table: string, period: 'day' | 'month'): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create index if not exists ${sql.id(`${table}_covering_index`)} on ${sql.table(table)} (assistant_id, kind, ${sql.ref(period)}, item) include (uses, label)`.execute(
    db,
  );
}

export function assistantInsightsRollUpsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      let daily = db.schema
        .createTable('assistant_insights_daily')
        .ifNotExists()
        .addColumn('assistant_id', 'integer', (column) => column.notNull())
        .addColumn('day', 'text', (column) => column.notNull());
      for (const counter of DAILY_COUNTERS) daily = daily.addColumn(counter, 'bigint', (column) => column.notNull().defaultTo(0));
      await daily.addPrimaryKeyConstraint('assistant_insights_daily_key', ['assistant_id', 'day']).execute();
      // The key's order serves every read: one assistant, one kind, a range of days.
      await db.schema
        .createTable('assistant_insights_items')
        .ifNotExists()
        .addColumn('assistant_id', 'integer', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('day', 'text', (column) => column.notNull())
        .addColumn('item', 'text', (column) => column.notNull())
        .addColumn('label', 'text')
        .addColumn('uses', 'bigint', (column) => column.notNull())
        .addPrimaryKeyConstraint('assistant_insights_items_key', ['assistant_id', 'kind', 'day', 'item'])
        .modifyEnd(clusteredByKey(dialect))
        .execute();
      await coveringIndex(db, dialect, 'assistant_insights_items', 'day');
      await db.schema
        .createTable('assistant_insights_monthly_items')
        .ifNotExists()
        .addColumn('assistant_id', 'integer', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('month', 'text', (column) => column.notNull())
        .addColumn('item', 'text', (column) => column.notNull())
        .addColumn('label', 'text')
        .addColumn('uses', 'bigint', (column) => column.notNull())
        .addPrimaryKeyConstraint('assistant_insights_monthly_items_key', ['assistant_id', 'kind', 'month', 'item'])
        .modifyEnd(clusteredByKey(dialect))
        .execute();
      await coveringIndex(db, dialect, 'assistant_insights_monthly_items', 'month');
    },
  };
}
