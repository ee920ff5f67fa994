/**
 * The list of organizations as system admins manage it: create with a unique slug, list, rename,
 * suspend, and delete an empty one. Settings of one organization live in organization-settings-repository.ts.
 */
import type { Kysely } from 'kysely';
import type { PageBounds } from '../validation/page-query-schema.js';
import { nowTimestamp, type Database, type OrganizationRow } from './schema.js';

/**
 * Inserts the organization unless its slug is taken; answers its id, or undefined when another
 * organization (perhaps one created by a concurrent request) already has the slug. The unique
 * index decides, so two racing creates can never both succeed.
 */
export async function insertOrganizationIfSlugFree(db: Kysely<Database>, slug: string, name: string): Promise<number | undefined> {
  const timestamp = nowTimestamp();
  const row = await db
    .insertInto('organizations')
    .values({ slug, name, is_system: 0, status: 'active', config: '{}', created_at: timestamp, updated_at: timestamp })
    .onConflict((conflict) => conflict.column('slug').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row?.id;
}

export async function listOrganizations(
  db: Kysely<Database>,
  page: PageBounds,
): Promise<{ items: Array<OrganizationRow & { member_count: number | string | bigint | null }>; total: number }> {
  const items = await db
    .selectFrom('organizations')
    .selectAll('organizations')
    .select((eb) =>
      eb
        .selectFrom('users')
        .whereRef('users.organization_id', '=', 'organizations.id')
        .select((inner) => inner.fn.countAll<number | string | bigint>().as('count'))
        .as('member_count'),
    )
    .orderBy('id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const { total } = await db
    .selectFrom('organizations')
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return { items, total: Number(total) };
}

export interface OrganizationChanges {
  name?: string;
  status?: 'active' | 'suspended';
}

export async function updateOrganization(db: Kysely<Database>, id: number, changes: OrganizationChanges): Promise<void> {
  await db
    .updateTable('organizations')
    .set({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.status !== undefined && { status: changes.status }),
      updated_at: nowTimestamp(),
    })
    .where('id', '=', id)
    .execute();
}

/** What still lives in an organization and would be lost with it; deleted (soft-deleted) objects do not count. */
export interface OrganizationContents {
  users: number;
  assistants: number;
  knowledge_bases: number;
  files: number;
  rubrics: number;
  lti_registrations: number;
}

async function countWhere(
  db: Kysely<Database>,
  table: 'users' | 'lti_consumers' | 'lti_platforms',
  organizationId: number,
): Promise<number> {
  const { total } = await db
    .selectFrom(table)
    .where('organization_id', '=', organizationId)
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return Number(total);
}

async function countLiveWhere(
  db: Kysely<Database>,
  table: 'assistants' | 'knowledge_bases' | 'files' | 'rubrics',
  organizationId: number,
): Promise<number> {
  const { total } = await db
    .selectFrom(table)
    .where('organization_id', '=', organizationId)
    .where('deleted_at', 'is', null)
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return Number(total);
}

export async function countOrganizationContents(db: Kysely<Database>, organizationId: number): Promise<OrganizationContents> {
  const [users, assistants, knowledgeBases, files, rubrics, consumers, platforms] = await Promise.all([
    countWhere(db, 'users', organizationId),
    countLiveWhere(db, 'assistants', organizationId),
    countLiveWhere(db, 'knowledge_bases', organizationId),
    countLiveWhere(db, 'files', organizationId),
    countLiveWhere(db, 'rubrics', organizationId),
    countWhere(db, 'lti_consumers', organizationId),
    countWhere(db, 'lti_platforms', organizationId),
  ]);
  return { users, assistants, knowledge_bases: knowledgeBases, files, rubrics, lti_registrations: consumers + platforms };
}

/** Deletes the organization; what is left of it (deleted objects, usage rows, chats) goes with it by the foreign keys' cascade. */
export async function deleteOrganization(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('organizations').where('id', '=', id).execute();
}
