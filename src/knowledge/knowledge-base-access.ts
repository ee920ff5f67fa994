/**
 * Reading a knowledge base for something a caller wants to do with it: the facts the permission
 * module decides on, and the read that answers 404 for a missing knowledge base and asks the
 * permission module about the rest. Every knowledge-base service reads through it.
 */
import type { Kysely } from 'kysely';
import type { Identity } from '../auth/identity.js';
import { requireKnowledgeBaseAction, type KnowledgeBaseAction, type KnowledgeBaseFacts } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { KnowledgeBaseRow } from '../store/knowledge-repository.js';
import type { Database } from '../store/schema.js';

export function knowledgeBaseFacts(record: KnowledgeBaseRow): KnowledgeBaseFacts {
  return {
    ownerId: record.owner_id,
    organizationId: record.organization_id,
    sharedWithOrganization: record.visibility === 'organization',
    deleted: record.deleted_at !== null,
  };
}

/** What `loadKnowledgeBase` reads, and for whom. */
export interface KnowledgeBaseAccess<Row extends KnowledgeBaseRow> {
  identity: Identity;
  id: number;
  action: KnowledgeBaseAction;
  /**
   * How the knowledge base is read: its row (`findKnowledgeBaseRow`) unless the caller shows its
   * counts (`findKnowledgeBase`), whose document count is a scan that grows with the knowledge base.
   */
  find: (db: Kysely<Database>, id: number) => Promise<Row | undefined>;
}

/** The knowledge base, if `identity` may do `action` to it: 404 when it is missing, as the permission module decides otherwise. */
export async function loadKnowledgeBase<Row extends KnowledgeBaseRow>(
  db: Kysely<Database>,
  access: KnowledgeBaseAccess<Row>,
): Promise<Row> {
  const record = await access.find(db, access.id);
  if (!record) throw new AppError('not_found', 'Knowledge base not found.');
  requireKnowledgeBaseAction(access.identity, knowledgeBaseFacts(record), access.action);
  return record;
}
