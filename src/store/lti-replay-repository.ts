/**
 * What keeps an LTI launch from being replayed, in the store so it holds across processes: used
 * nonces (single use through the primary key: of two processes inserting the same nonce, one
 * wins) and OIDC login states (taken by a delete, so only one launch can use each).
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

export async function insertLoginState(
  db: Kysely<Database>,
  state: { state: string; platformId: number; nonce: string; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('lti_login_states')
    .values({ state: state.state, platform_id: state.platformId, nonce: state.nonce, expires_at: state.expiresAt })
    .execute();
}

/** Deletes and answers the login state if it is still live; a second call for the same state finds nothing. */
export async function takeLoginState(
  db: Kysely<Database>,
  state: string,
  now: number,
): Promise<{ platformId: number; nonce: string } | undefined> {
  const row = await db
    .deleteFrom('lti_login_states')
    .where('state', '=', state)
    .returning(['platform_id', 'nonce', 'expires_at'])
    .executeTakeFirst();
  if (!row || Number(row.expires_at) <= now) return undefined;
  return { platformId: row.platform_id, nonce: row.nonce };
}

/** Deletes nonces and login states that have expired; they can no longer be accepted anyway. */
export async function purgeExpiredReplayGuards(db: Kysely<Database>, now: number): Promise<void> {
  await db.deleteFrom('lti_used_nonces').where('expires_at', '<', now).execute();
  await db.deleteFrom('lti_login_states').where('expires_at', '<', now).execute();
}
