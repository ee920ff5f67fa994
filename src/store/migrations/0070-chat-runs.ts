/**
 * Migration 0070: answers that belong to their chat, not to a connection (docs/chats.md). A
 * `chat_runs` row is one answer being produced: its status, whether its owner asked it to stop,
 * which process produces it and until when that process has promised to renew (a lease, so a run
 * whose process died is known as interrupted), and when a client last watched it. Its
 * `chat_run_events` are the pipeline events in order, appended in small batches, which any process
 * replays to a client that rejoins. At most one run of a chat is running at a time (a partial
 * unique index, so the rule holds across processes).
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function chatRunsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withIdColumn(db.schema.createTable('chat_runs'), dialect)
        .addColumn('chat_id', 'integer', (column) => column.notNull().references('chats.id').onDelete('cascade'))
        .addColumn('owner_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('stop_requested', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('lease_owner', 'text', (column) => column.notNull())
        .addColumn('lease_expires_at', 'text', (column) => column.notNull())
        .addColumn('watched_at', 'text', (column) => column.notNull())
        .addColumn('started_at', 'text', (column) => column.notNull())
        .addColumn('ended_at', 'text')
        .execute();
      await db.schema.createIndex('chat_runs_chat_index').on('chat_runs').columns(['chat_id', 'id']).execute();
      await db.schema.createIndex('chat_runs_owner_status_index').on('chat_runs').columns(['owner_id', 'status']).execute();
      await sql`create unique index chat_runs_one_running_per_chat on chat_runs (chat_id) where status = 'running'`.execute(db);

      await withIdColumn(db.schema.createTable('chat_run_events'), dialect)
        .addColumn('run_id', 'integer', (column) => column.notNull().references('chat_runs.id').onDelete('cascade'))
        .addColumn('sequence', 'integer', (column) => column.notNull())
        .addColumn('event', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('chat_run_events_run_sequence_index')
        .on('chat_run_events')
        .columns(['run_id', 'sequence'])
        .unique()
        .execute();
    },
  };
}
