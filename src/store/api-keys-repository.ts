/** API keys, stored as hashes with a short display prefix. */
import type { Kysely } from 'kysely';
import type { PageBounds } from '../validation/page-query-schema.js';
import { nowTimestamp, toFlag, type ApiKeyRow, type Database } from './schema.js';

export interface NewApiKey {
  userId: number;
  name: string;
  keyPrefix: string;
  keyHash: string;
  trustedFrontEnd: boolean;
  sourceLinks: boolean;
  expiresAt: string | null;
}

export async function insertApiKey(db: Kysely<Database>, key: NewApiKey): Promise<ApiKeyRow> {
  return db
    .insertInto('api_keys')
    .values({
      user_id: key.userId,
      name: key.name,
      key_prefix: key.keyPrefix,
      key_hash: key.keyHash,
      created_at: nowTimestamp(),
      last_used_at: null,
      trusted_front_end: toFlag(key.trustedFrontEnd),
      expires_at: key.expiresAt,
      source_links: toFlag(key.sourceLinks),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findApiKeyByHash(db: Kysely<Database>, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

export async function findApiKeyById(db: Kysely<Database>, id: number): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

/** A page of a user's keys, oldest first (by id alone, so pages never overlap), with the count of all of them. */
export async function listApiKeys(db: Kysely<Database>, userId: number, page: PageBounds): Promise<{ items: ApiKeyRow[]; total: number }> {
  const ofUser = db.selectFrom('api_keys').where('user_id', '=', userId);
  const items = await ofUser.selectAll().orderBy('id').limit(page.limit).offset(page.offset).execute();
  const { total } = await ofUser.select((eb) => eb.fn.countAll().as('total')).executeTakeFirstOrThrow();
  return { items, total: Number(total) };
}

export async function deleteApiKey(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('api_keys').where('id', '=', id).execute();
}

/**
 * Records a use unless one was recorded since `notAfter`: the condition sits in the UPDATE, so
 * processes racing on one busy key write once per interval, not once each.
 */
export async function markApiKeyUsed(db: Kysely<Database>, id: number, notAfter: string): Promise<void> {
  await db
    .updateTable('api_keys')
    .set({ last_used_at: nowTimestamp() })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notAfter)]))
    .execute();
}
