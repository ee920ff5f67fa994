/**
 * Migration 0079: an index on the audit log's organization and id, so an organization admin's
 * `GET /api/audit` (their organization's entries, newest first, a page at a time) reads only
 * that organization's entries instead of walking every organization's from the newest.
 */
import type { Kysely, Migration } from 'kysely';

export function auditLogOrganizationIndexMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createIndex('audit_log_organization_index')
        .ifNotExists()
        .on('audit_log')
        .columns(['organization_id', 'id'])
        .execute();
    },
  };
}
