/** Migration 0008: a document's page count, where its format has pages (PDF), for listing documents. */
import type { Kysely, Migration } from 'kysely';

export function documentPageCountMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('kb_documents').addColumn('page_count', 'integer').execute();
    },
  };
}
