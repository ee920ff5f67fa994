/**
 * Migration 0090: images the `banana_img` connector generates are kept as their requester's files
 * (docs/image-generation.md). `chat_id` names the web chat an image was made in, so deleting the
 * chat deletes its images; it is null for uploads and for images made outside a chat (/v1). No
 * foreign key: a chat is deleted outright while a file is only marked deleted, in the same step.
 */
import type { Kysely, Migration } from 'kysely';

export function generatedImageFilesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('files').addColumn('chat_id', 'integer').execute();
      await db.schema.createIndex('files_chat_index').on('files').column('chat_id').execute();
    },
  };
}
