/**
 * Migration 0072: a knowledge base's language, a BCP-47 tag such as `en`, `es`, `ca` or `eu`, or
 * null when its owner did not say. It labels the material for people choosing it; search does not
 * depend on it. Existing knowledge bases keep null.
 */
import type { Kysely, Migration } from 'kysely';

export function knowledgeBaseLanguageMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('knowledge_bases').addColumn('language', 'text').execute();
    },
  };
}
