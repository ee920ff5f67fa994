/**
 * Organizations' self sign-up rows (docs/sign-up.md): its switch, the hash of its key, the allowed
 * email domain and the role new people get. Rows are upserted, so the first change creates one.
 */
import type { Kysely } from 'kysely';
import { nowTimestamp, toFlag, type Database, type OrganizationSignUpRow } from './schema.js';

export interface SignUpSettingsChange {
  enabled: boolean;
  allowedEmailDomain: string | null;
  role: 'creator' | 'learner';
}

/** An open sign-up a key names, with its organization's status, for the sign-up itself. */
export type SignUpByKey = OrganizationSignUpRow & { organization_status: string };

export async function findSignUp(db: Kysely<Database>, organizationId: number): Promise<OrganizationSignUpRow | undefined> {
  return db.selectFrom('organization_sign_ups').selectAll().where('organization_id', '=', organizationId).executeTakeFirst();
}

export async function findSignUpByKeyHash(db: Kysely<Database>, keyHash: string): Promise<SignUpByKey | undefined> {
  return db
    .selectFrom('organization_sign_ups')
    .innerJoin('organizations', 'organizations.id', 'organization_sign_ups.organization_id')
    .selectAll('organization_sign_ups')
    .select('organizations.status as organization_status')
    .where('organization_sign_ups.key_hash', '=', keyHash)
    .executeTakeFirst();
}

export async function saveSignUpSettings(db: Kysely<Database>, organizationId: number, change: SignUpSettingsChange): Promise<void> {
  const values = {
    enabled: toFlag(change.enabled),
    allowed_email_domain: change.allowedEmailDomain,
    role: change.role,
    updated_at: nowTimestamp(),
  };
  await db
    .insertInto('organization_sign_ups')
    .values({ organization_id: organizationId, key_hash: null, key_created_at: null, ...values })
    .onConflict((conflict) => conflict.column('organization_id').doUpdateSet(values))
    .execute();
}

/** Replaces the organization's key: the old one stops working in the same statement. */
export async function replaceSignUpKey(db: Kysely<Database>, organizationId: number, keyHash: string): Promise<void> {
  const timestamp = nowTimestamp();
  const values = { key_hash: keyHash, key_created_at: timestamp, updated_at: timestamp };
  await db
    .insertInto('organization_sign_ups')
    .values({ organization_id: organizationId, allowed_email_domain: null, ...values })
    .onConflict((conflict) => conflict.column('organization_id').doUpdateSet(values))
    .execute();
}

/**
 * Sets a key only where the organization has none yet (its row must exist); answers whether it
 * did. Two admins turning sign-up on at once thus make one key, and the other answer shows none.
 */
export async function setFirstSignUpKey(db: Kysely<Database>, organizationId: number, keyHash: string): Promise<boolean> {
  const timestamp = nowTimestamp();
  const result = await db
    .updateTable('organization_sign_ups')
    .set({ key_hash: keyHash, key_created_at: timestamp, updated_at: timestamp })
    .where('organization_id', '=', organizationId)
    .where('key_hash', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
