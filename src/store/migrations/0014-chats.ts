/**
 * Migration 0014: chats kept per person (DESIGN §5, §9). A chat belongs to its owner and names the
 * assistant it talks to; its messages hold what the learner asked and what the assistant answered,
 * with reasoning, sources, a summary of the tool steps, usage and finish reason (JSON as text).
 * Deleting a user, an assistant row or an organization deletes their chats (foreign keys with
 * `on delete cascade`); assistants are soft-deleted, so their chats stay readable. The
 * organization's chat policies are two columns: how many days chats are kept (null: forever), and
 * whether assistants' owners may read the chats of their assistants (0 by default).
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function chatsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withIdColumn(db.schema.createTable('chats'), dialect)
        .addColumn('organization_id', 'integer', (column) => column.notNull().references('organizations.id').onDelete('cascade'))
        .addColumn('owner_id', 'integer', (column) => column.notNull().references('users.id').onDelete('cascade'))
        .addColumn('assistant_id', 'integer', (column) => column.notNull().references('assistants.id').onDelete('cascade'))
        .addColumn('title', 'text', (column) => column.notNull())
        .addColumn('search_text', 'text', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('chats_owner_updated_index').on('chats').columns(['owner_id', 'updated_at']).execute();
      await db.schema.createIndex('chats_assistant_index').on('chats').columns(['assistant_id', 'updated_at']).execute();
      // The retention purge looks for old chats of one organization.
      await db.schema.createIndex('chats_organization_updated_index').on('chats').columns(['organization_id', 'updated_at']).execute();

      await withIdColumn(db.schema.createTable('chat_messages'), dialect)
        .addColumn('chat_id', 'integer', (column) => column.notNull().references('chats.id').onDelete('cascade'))
        .addColumn('role', 'text', (column) => column.notNull())
        .addColumn('content', 'text', (column) => column.notNull())
        .addColumn('reasoning', 'text')
        .addColumn('sources', 'text', (column) => column.notNull())
        .addColumn('steps', 'text', (column) => column.notNull())
        .addColumn('usage', 'text')
        .addColumn('finish_reason', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema.createIndex('chat_messages_chat_index').on('chat_messages').columns(['chat_id', 'id']).execute();

      await db.schema.alterTable('organizations').addColumn('chat_retention_days', 'integer').execute();
      await db.schema
        .alterTable('organizations')
        .addColumn('owners_can_read_chats', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
    },
  };
}
