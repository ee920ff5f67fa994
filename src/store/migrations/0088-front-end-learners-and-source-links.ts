/**
 * Migration 0088: Open WebUI as a front end. `front_end_creates_learners` lets a trusted front end
 * create a learner for an email Merino does not know (off until an organization's admin turns it
 * on); `source_links` marks the trusted front-end keys whose answers end with a markdown "Sources"
 * block of signed links (docs/open-webui.md).
 */
import type { Kysely, Migration } from 'kysely';

export function frontEndLearnersAndSourceLinksMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('organizations')
        .addColumn('front_end_creates_learners', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('api_keys')
        .addColumn('source_links', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
    },
  };
}
