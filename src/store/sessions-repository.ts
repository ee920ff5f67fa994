/** Login sessions, found by the hash of their opaque token. */
import type { Kysely } from 'kysely';
import { nowTimestamp, type Database, type SessionRow } from './schema.js';

export async function insertSession(db: Kysely<Database>, userId: number, tokenHash: string, expiresAt: string): Promise<number> {
  const { id } = await db
    .insertInto('sessions')
    .values({ user_id: userId, token_hash: tokenHash, created_at: nowTimestamp(), expires_at: expiresAt, revoked_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** A session that exists, is not revoked and has not expired. */
export async function findLiveSession(db: Kysely<Database>, tokenHash: string): Promise<SessionRow | undefined> {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', nowTimestamp())
    .executeTakeFirst();
}

export async function revokeSession(db: Kysely<Database>, sessionId: number): Promise<void> {
  await db.updateTable('sessions').set({ revoked_at: nowTimestamp() }).where('id', '=', sessionId).execute();
}

export async function revokeUserSessions(db: Kysely<Database>, userId: number): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ revoked_at: nowTimestamp() })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** Revokes every live session of the user but `keptSessionId` (the one choosing a new password). */
export async function revokeUserSessionsExcept(db: Kysely<Database>, userId: number, keptSessionId: number | undefined): Promise<void> {
  let query = db.updateTable('sessions').set({ revoked_at: nowTimestamp() }).where('user_id', '=', userId).where('revoked_at', 'is', null);
  if (keptSessionId !== undefined) query = query.where('id', '!=', keptSessionId);
  await query.execute();
}
