/** API keys, stored as hashes with a short display prefix. */
import type { Kysely } from 'kysely';
import { nowTimestamp, type ApiKeyRow, type Database } from './schema.js';

export async function insertApiKey(db: Kysely<Database>, userId: number, name: string, keyPrefix: string, keyHash: string): Promise<ApiKeyRow> {
  return db
    .insertInto('api_keys')
    .values({ user_id: userId, name, key_prefix: keyPrefix, key_hash: keyHash, created_at: nowTimestamp(), last_used_at: null })
    .returningAll()
    .executeTakeFirstOrThrow();
}

export async function findApiKeyByHash(db: Kysely<Database>, keyHash: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('key_hash', '=', keyHash).executeTakeFirst();
}

export async function findApiKeyById(db: Kysely<Database>, id: number): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeys(db: Kysely<Database>, userId: number): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export async function deleteApiKey(db: Kysely<Database>, id: number): Promise<void> {
  await db.deleteFrom('api_keys').where('id', '=', id).execute();
}

export async function markApiKeyUsed(db: Kysely<Database>, id: number): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: nowTimestamp() }).where('id', '=', id).execute();
}
