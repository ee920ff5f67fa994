/**
 * What an organization's count and size limits are measured against: its live assistants (all,
 * and one owner's), and the bytes of its members' live files and of the documents of its live
 * knowledge bases. Plus the row lock that makes a count-then-insert exact.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * Takes the organization row's write lock for the rest of the transaction: PostgreSQL holds it
 * until commit, so concurrent writers in the organization (in any process) wait their turn, and
 * SQLite runs one write transaction at a time anyway. A no-op update, so nothing changes.
 */
export async function lockOrganization(transaction: Kysely<Database>, organizationId: number): Promise<void> {
  await transaction
    .updateTable('organizations')
    .set({ status: sql<string>`status` })
    .where('id', '=', organizationId)
    .execute();
}

export async function countLiveAssistants(db: Kysely<Database>, organizationId: number, ownerId?: number): Promise<number> {
  let query = db
    .selectFrom('assistants')
    .select((builder) => builder.fn.countAll<number | string>().as('count'))
    .where('organization_id', '=', organizationId)
    .where('deleted_at', 'is', null);
  if (ownerId !== undefined) query = query.where('owner_id', '=', ownerId);
  const { count } = await query.executeTakeFirstOrThrow();
  return Number(count);
}

/** Bytes of the organization's live files and of the documents in its live knowledge bases. */
export async function storedBytesOfOrganization(db: Kysely<Database>, organizationId: number): Promise<number> {
  const files = await db
    .selectFrom('files')
    .select((builder) => builder.fn.sum<number | string | null>('size_bytes').as('bytes'))
    .where('organization_id', '=', organizationId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  const documents = await db
    .selectFrom('kb_documents')
    .innerJoin('knowledge_bases', 'knowledge_bases.id', 'kb_documents.knowledge_base_id')
    .select((builder) => builder.fn.sum<number | string | null>('kb_documents.size_bytes').as('bytes'))
    .where('knowledge_bases.organization_id', '=', organizationId)
    .where('knowledge_bases.deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(files.bytes ?? 0) + Number(documents.bytes ?? 0);
}
