/** Organizations; the system organization is created at first start. */
import type { Kysely } from 'kysely';
import { nowTimestamp, type Database, type OrganizationRow } from './schema.js';

export const SYSTEM_ORGANIZATION_SLUG = 'system';

export async function findOrganizationById(db: Kysely<Database>, id: number): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertOrganization(db: Kysely<Database>, slug: string, name: string, isSystem = false): Promise<number> {
  const timestamp = nowTimestamp();
  const { id } = await db
    .insertInto('organizations')
    .values({ slug, name, is_system: isSystem ? 1 : 0, status: 'active', config: '{}', created_at: timestamp, updated_at: timestamp })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** Returns the system organization, creating it when the store is new. Safe to race: the slug is unique. */
export async function ensureSystemOrganization(db: Kysely<Database>): Promise<OrganizationRow> {
  const existing = await db.selectFrom('organizations').selectAll().where('slug', '=', SYSTEM_ORGANIZATION_SLUG).executeTakeFirst();
  if (existing) return existing;
  const timestamp = nowTimestamp();
  await db
    .insertInto('organizations')
    .values({
      slug: SYSTEM_ORGANIZATION_SLUG,
      name: 'System',
      is_system: 1,
      status: 'active',
      config: '{}',
      created_at: timestamp,
      updated_at: timestamp,
    })
    .onConflict((conflict) => conflict.column('slug').doNothing())
    .execute();
  return db.selectFrom('organizations').selectAll().where('slug', '=', SYSTEM_ORGANIZATION_SLUG).executeTakeFirstOrThrow();
}

export async function updateOrganizationConfig(db: Kysely<Database>, id: number, config: string): Promise<void> {
  await db.updateTable('organizations').set({ config, updated_at: nowTimestamp() }).where('id', '=', id).execute();
}
