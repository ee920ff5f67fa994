/**
 * What keeps an LTI launch from being replayed, in the store so it holds across processes: used
 * nonces (single use through the primary key: of two processes inserting the same nonce, one
 * wins) and OIDC login states (read while the launch is checked, then taken by a delete, so only
 * one launch can use each, and a launch that fails its checks leaves the state for the real one).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Records the nonce as used; false when it was used before (by this process or any other). */
export async function spendNonce(db: Kysely<Database>, scope: string, nonce: string, expiresAt: number): Promise<boolean> {
  const result = await sql<{ nonce: string }>`
    insert into lti_used_nonces (scope, nonce, expires_at) values (${scope}, ${nonce}, ${expiresAt})
    on conflict (scope, nonce) do nothing
    returning nonce`.execute(db);
  return result.rows.length === 1;
}

export interface LoginState {
  platformId: number;
  nonce: string;
  /** SHA-256 (hex) of the secret the login gave the browser; null for a state written before binding existed. */
  browserSecretHash: string | null;
  /** The platform's storage frame (`lti_storage_target`) when the login offered platform storage. */
  storageTarget: string | null;
}

export async function insertLoginState(db: Kysely<Database>, state: LoginState & { state: string; expiresAt: number }): Promise<void> {
  await db
    .insertInto('lti_login_states')
    .values({
      state: state.state,
      platform_id: state.platformId,
      nonce: state.nonce,
      expires_at: state.expiresAt,
      browser_secret_hash: state.browserSecretHash,
      storage_target: state.storageTarget,
    })
    .execute();
}

/** The login state if it is still live, left in place: a launch that fails its checks must not use it up. */
export async function findLoginState(db: Kysely<Database>, state: string, now: number): Promise<LoginState | undefined> {
  const row = await db
    .selectFrom('lti_login_states')
    .select(['platform_id', 'nonce', 'browser_secret_hash', 'storage_target'])
    .where('state', '=', state)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  return { platformId: row.platform_id, nonce: row.nonce, browserSecretHash: row.browser_secret_hash, storageTarget: row.storage_target };
}

/** Deletes the login state; true for the one caller that deleted it while it was live (of two launches racing, one wins). */
export async function takeLoginState(db: Kysely<Database>, state: string, now: number): Promise<boolean> {
  const row = await db.deleteFrom('lti_login_states').where('state', '=', state).returning(['expires_at']).executeTakeFirst();
  return row !== undefined && Number(row.expires_at) > now;
}

/** Deletes nonces and login states that have expired; they can no longer be accepted anyway. */
export async function purgeExpiredReplayGuards(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom('lti_used_nonces').where('expires_at', '<', now).execute();
  await db.deleteFrom('lti_login_states').where('expires_at', '<', now).execute();
}
