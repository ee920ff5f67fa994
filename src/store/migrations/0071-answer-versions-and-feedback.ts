/**
 * Migration 0071: answer versions, edited questions and feedback (docs/chats.md). A chat's messages
 * become a tree: each message names the one it follows (`parent_id`; null for a first question),
 * so a regenerated answer is a sibling of the one it replaces and an edited question a sibling of
 * the question it rewrites, each starting its own branch. `chats.active_leaf_id` is the last
 * message of the branch the owner is looking at. Existing chats become one branch: each message
 * follows the one before it, and the newest is the leaf. `answer_feedback` holds one rating (up or
 * down) with an optional comment per answer; it goes with the answer and the chat.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function answerVersionsAndFeedbackMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // No foreign key on parent_id: messages are only ever deleted with their chat.
      await db.schema.alterTable('chat_messages').addColumn('parent_id', 'integer').execute();
      await db.schema.alterTable('chats').addColumn('active_leaf_id', 'integer').execute();
      await sql`update chat_messages set parent_id = (
          select max(earlier.id) from chat_messages earlier
          where earlier.chat_id = chat_messages.chat_id and earlier.id < chat_messages.id)`.execute(db);
      await sql`update chats set active_leaf_id = (select max(message.id) from chat_messages message where message.chat_id = chats.id)`.execute(
        db,
      );
      await db.schema.createIndex('chat_messages_parent_index').on('chat_messages').columns(['chat_id', 'parent_id']).execute();

      await withIdColumn(db.schema.createTable('answer_feedback'), dialect)
        .addColumn('message_id', 'integer', (column) => column.notNull().references('chat_messages.id').onDelete('cascade'))
        .addColumn('chat_id', 'integer', (column) => column.notNull().references('chats.id').onDelete('cascade'))
        .addColumn('rating', 'text', (column) => column.notNull())
        .addColumn('comment', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      // One rating per answer: a second one replaces the first (an upsert on this index).
      await db.schema.createIndex('answer_feedback_message_index').on('answer_feedback').column('message_id').unique().execute();
      await db.schema.createIndex('answer_feedback_chat_index').on('answer_feedback').column('chat_id').execute();
    },
  };
}
