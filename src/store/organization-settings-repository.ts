/** An organization's own policies that are plain columns (not secrets, not provider settings). */
import type { Kysely } from 'kysely';
import { nowTimestamp, toFlag, type Database } from './schema.js';

export interface OrganizationPolicies {
  learnersCreateApiKeys: boolean;
  /** Whether users an LTI launch names Instructor become creators (else learners). */
  ltiInstructorsCreate: boolean;
}

export async function findOrganizationPolicies(db: Kysely<Database>, organizationId: number): Promise<OrganizationPolicies | undefined> {
  const row = await db
    .selectFrom('organizations')
    .select(['learners_create_api_keys', 'lti_instructors_create'])
    .where('id', '=', organizationId)
    .executeTakeFirst();
  return row && { learnersCreateApiKeys: row.learners_create_api_keys === 1, ltiInstructorsCreate: row.lti_instructors_create === 1 };
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
      ...(changes.ltiInstructorsCreate !== undefined && { lti_instructors_create: toFlag(changes.ltiInstructorsCreate) }),
      updated_at: nowTimestamp(),
    })
    .where('id', '=', organizationId)
    .execute();
}
