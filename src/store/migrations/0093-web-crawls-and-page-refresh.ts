/**
 * Migration 0093: knowledge from the web, beyond one page (docs/knowledge-bases.md "Web pages").
 * `web_crawls` records a crawl of same-site links started from one page: its bounds, how many
 * pages it has read and which failed with their reasons, so the request answers at once and the
 * crawl's progress is read from the store by any process; the crawl's runner renews a lease on it
 * (`lease_expires_at`), so a crawl whose process died is failed by the leftover sweep. Documents added from a URL gain what a
 * refresh needs: the SHA-256 of the text last stored (`content_hash`), when the page was last
 * checked and how that went (`refresh_outcome`, `refresh_error`), and an optional schedule
 * (`refresh_every_seconds`, null for none) with the time it is next due (`refresh_due_at`,
 * indexed, which the scheduled sweep reads).
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function webCrawlsAndPageRefreshMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withIdColumn(db.schema.createTable('web_crawls'), dialect)
        .addColumn('knowledge_base_id', 'integer', (column) => column.notNull().references('knowledge_bases.id').onDelete('cascade'))
        .addColumn('requested_by', 'integer', (column) => column.notNull())
        .addColumn('start_url', 'text', (column) => column.notNull())
        .addColumn('depth', 'integer', (column) => column.notNull())
        .addColumn('pages_maximum', 'integer', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('pages_read', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('pages_failed', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('pages_found', 'integer', (column) => column.notNull().defaultTo(0))
        /** JSON: the pages that failed, `[{url, reason}]`, bounded. */
        .addColumn('failures', 'text', (column) => column.notNull().defaultTo('[]'))
        /** JSON: the documents made, `[{document_id, job_id, url}]`. */
        .addColumn('documents', 'text', (column) => column.notNull().defaultTo('[]'))
        .addColumn('runner', 'text')
        /** Until when the crawl stays its runner's without renewal (WEB_CRAWL_LEASE_MS); past it the leftover sweep fails it. */
        .addColumn('lease_expires_at', 'text')
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema.createIndex('web_crawls_knowledge_base_index').on('web_crawls').column('knowledge_base_id').execute();
      await db.schema.alterTable('kb_documents').addColumn('content_hash', 'text').execute();
      await db.schema.alterTable('kb_documents').addColumn('last_checked_at', 'text').execute();
      await db.schema.alterTable('kb_documents').addColumn('refresh_outcome', 'text').execute();
      await db.schema.alterTable('kb_documents').addColumn('refresh_error', 'text').execute();
      await db.schema.alterTable('kb_documents').addColumn('refresh_every_seconds', 'integer').execute();
      await db.schema.alterTable('kb_documents').addColumn('refresh_due_at', 'text').execute();
      await db.schema.createIndex('kb_documents_refresh_due_index').on('kb_documents').column('refresh_due_at').execute();
    },
  };
}
