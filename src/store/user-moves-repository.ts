/**
 * Moving a user to another organization, with what they own (docs/organizations.md): their
 * assistants, knowledge bases, rubrics, files and templates go with them and stay theirs, but
 * nothing of theirs becomes visible to the new organization by itself, and nothing keeps reaching
 * the old one. Assistants are unpublished, organization-wide knowledge bases and rubrics become
 * private, organization-wide templates personal, and individual assistant shares (which never
 * cross organizations) are removed both ways. Chats stay their owner's, unchanged. Call it inside
 * a transaction.
 */
import type { Kysely } from 'kysely';
import { nowTimestamp, type Database, type OrganizationRole } from './schema.js';

export interface UserMove {
  userId: number;
  fromOrganizationId: number;
  toOrganizationId: number;
  role: OrganizationRole;
}

/** The rubric ids of the user's that the target organization already uses (rubric ids are unique per organization). */
export async function clashingRubricIds(db: Kysely<Database>, move: UserMove): Promise<string[]> {
  const rows = await db
    .selectFrom('rubrics as mine')
    .innerJoin('rubrics as theirs', 'theirs.rubric_id', 'mine.rubric_id')
    .where('mine.owner_id', '=', move.userId)
    .where('theirs.organization_id', '=', move.toOrganizationId)
    .select('mine.rubric_id')
    .execute();
  return rows.map((row) => row.rubric_id);
}

export interface MovedCounts {
  assistants: number;
  unpublished: number;
  shares_removed: number;
}

export async function moveUserToOrganization(db: Kysely<Database>, move: UserMove): Promise<MovedCounts> {
  const timestamp = nowTimestamp();
  const { userId, toOrganizationId } = move;
  await db.updateTable('users').set({ organization_id: toOrganizationId, updated_at: timestamp }).where('id', '=', userId).execute();
  await db.deleteFrom('organization_roles').where('user_id', '=', userId).execute();
  await db
    .insertInto('organization_roles')
    .values({ organization_id: toOrganizationId, user_id: userId, role: move.role, created_at: timestamp })
    .execute();
  const ownAssistants = db.selectFrom('assistants').select('id').where('owner_id', '=', userId);
  const sharesRemoved = await db
    .deleteFrom('assistant_shares')
    .where((eb) => eb.or([eb('assistant_id', 'in', ownAssistants), eb('user_id', '=', userId)]))
    .executeTakeFirst();
  const unpublished = await db
    .updateTable('assistants')
    .set({ published: 0, published_at: null })
    .where('owner_id', '=', userId)
    .where('published', '=', 1)
    .executeTakeFirst();
  const assistants = await db
    .updateTable('assistants')
    .set({ organization_id: toOrganizationId })
    .where('owner_id', '=', userId)
    .executeTakeFirst();
  await db
    .updateTable('knowledge_bases')
    .set({ organization_id: toOrganizationId, visibility: 'private' })
    .where('owner_id', '=', userId)
    .execute();
  await db
    .updateTable('rubrics')
    .set({ organization_id: toOrganizationId, visibility: 'private' })
    .where('owner_id', '=', userId)
    .execute();
  await db.updateTable('files').set({ organization_id: toOrganizationId }).where('owner_id', '=', userId).execute();
  // Templates shared with the old organization become personal, as rubrics become private; system-wide ones stay so.
  await db
    .updateTable('templates')
    .set({ visibility: 'personal' })
    .where('owner_id', '=', userId)
    .where('visibility', '=', 'organization')
    .execute();
  await db.updateTable('templates').set({ organization_id: toOrganizationId }).where('owner_id', '=', userId).execute();
  return {
    assistants: Number(assistants.numUpdatedRows),
    unpublished: Number(unpublished.numUpdatedRows),
    shares_removed: Number(sharesRemoved.numDeletedRows),
  };
}
