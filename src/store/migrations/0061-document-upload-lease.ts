/**
 * Migration 0061: which process is still uploading a knowledge-base document, and until when that
 * process has promised to finish or renew (`upload_owner`, `upload_lease_expires_at`). Both are set
 * when the upload writes the document's row and cleared in the transaction that queues its job, so
 * a pending document without a job whose owner has died or whose lease ran out is known to be an
 * interrupted upload at once, rather than after UPLOAD_LEFTOVER_GRACE_MS. The index on `status`
 * lets the sweep that looks for such documents read only the pending ones.
 */
import type { Kysely, Migration } from 'kysely';

export function documentUploadLeaseMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('kb_documents').addColumn('upload_owner', 'text').execute();
      await db.schema.alterTable('kb_documents').addColumn('upload_lease_expires_at', 'text').execute();
      await db.schema.createIndex('kb_documents_status_index').on('kb_documents').column('status').execute();
    },
  };
}
