/** An organization's own policies that are plain columns (not secrets, not provider settings). */
import type { Kysely } from 'kysely';
import { nowTimestamp, toFlag, type Database } from './schema.js';

export interface OrganizationPolicies {
  learnersCreateApiKeys: boolean;
  /** Days a chat is kept after its last change; null keeps chats. */
  chatRetentionDays: number | null;
  ownersCanReadChats: boolean;
  /** Whether users an LTI launch names Instructor become creators (else learners). */
  ltiInstructorsCreate: boolean;
  /** Whether a trusted front end (Open WebUI) may create a learner for an email nobody has. */
  frontEndCreatesLearners: boolean;
}

export async function findOrganizationPolicies(db: Kysely<Database>, organizationId: number): Promise<OrganizationPolicies | undefined> {
  const row = await db
    .selectFrom('organizations')
    .select([
      'learners_create_api_keys',
      'chat_retention_days',
      'owners_can_read_chats',
      'lti_instructors_create',
      'front_end_creates_learners',
    ])
    .where('id', '=', organizationId)
    .executeTakeFirst();
  return (
    row && {
      learnersCreateApiKeys: row.learners_create_api_keys === 1,
      chatRetentionDays: row.chat_retention_days,
      ownersCanReadChats: row.owners_can_read_chats === 1,
      ltiInstructorsCreate: row.lti_instructors_create === 1,
      frontEndCreatesLearners: row.front_end_creates_learners === 1,
    }
  );
}

export async function updateOrganizationPolicies(
  db: Kysely<Database>,
  organizationId: number,
  changes: Partial<OrganizationPolicies>,
): Promise<void> {
  await db
    .updateTable('organizations')
    .set({
      ...(changes.learnersCreateApiKeys !== undefined && { learners_create_api_keys: toFlag(changes.learnersCreateApiKeys) }),
      ...(changes.chatRetentionDays !== undefined && { chat_retention_days: changes.chatRetentionDays }),
      ...(changes.ownersCanReadChats !== undefined && { owners_can_read_chats: toFlag(changes.ownersCanReadChats) }),
      ...(changes.ltiInstructorsCreate !== undefined && { lti_instructors_create: toFlag(changes.ltiInstructorsCreate) }),
      ...(changes.frontEndCreatesLearners !== undefined && { front_end_creates_learners: toFlag(changes.frontEndCreatesLearners) }),
      updated_at: nowTimestamp(),
    })
    .where('id', '=', organizationId)
    .execute();
}
