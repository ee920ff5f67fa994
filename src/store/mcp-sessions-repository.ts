/** MCP sessions (docs/mcp.md), found by the hash of their id and the credential that opened them. */
import type { Kysely } from 'kysely';
import type { Database, McpSessionRow } from './schema.js';

/** The credential a session belongs to: only requests made with it may use the session. */
export interface McpSessionOwner {
  userId: number;
  credential: string;
  credentialId: number;
}

export interface NewMcpSession {
  idHash: string;
  owner: McpSessionOwner;
  now: string;
  expiresAt: string;
}

export async function insertMcpSession(db: Kysely<Database>, session: NewMcpSession): Promise<void> {
  await db
    .insertInto('mcp_sessions')
    .values({
      id_hash: session.idHash,
      user_id: session.owner.userId,
      credential: session.owner.credential,
      credential_id: session.owner.credentialId,
      created_at: session.now,
      last_seen_at: session.now,
      expires_at: session.expiresAt,
    })
    .execute();
}

/** The owner's session with that id hash, if it has not expired; another credential's is never found. */
export async function findLiveMcpSession(
  db: Kysely<Database>,
  idHash: string,
  owner: McpSessionOwner,
  now: string,
): Promise<McpSessionRow | undefined> {
  return db
    .selectFrom('mcp_sessions')
    .selectAll()
    .where('id_hash', '=', idHash)
    .where('credential', '=', owner.credential)
    .where('credential_id', '=', owner.credentialId)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export async function touchMcpSession(db: Kysely<Database>, id: number, now: string, expiresAt: string): Promise<void> {
  await db.updateTable('mcp_sessions').set({ last_seen_at: now, expires_at: expiresAt }).where('id', '=', id).execute();
}

/** Ends the owner's session with that id hash; false when there was none of theirs. */
export async function deleteMcpSession(db: Kysely<Database>, idHash: string, owner: McpSessionOwner): Promise<boolean> {
  const result = await db
    .deleteFrom('mcp_sessions')
    .where('id_hash', '=', idHash)
    .where('credential', '=', owner.credential)
    .where('credential_id', '=', owner.credentialId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteExpiredMcpSessions(db: Kysely<Database>, now: string): Promise<void> {
  await db.deleteFrom('mcp_sessions').where('expires_at', '<=', now).execute();
}

/** Keeps the owner's `kept` most recently used sessions and deletes the rest. */
export async function trimMcpSessions(db: Kysely<Database>, owner: McpSessionOwner, kept: number): Promise<void> {
  const stale = await db
    .selectFrom('mcp_sessions')
    .select('id')
    .where('credential', '=', owner.credential)
    .where('credential_id', '=', owner.credentialId)
    .orderBy('last_seen_at', 'desc')
    .orderBy('id', 'desc')
    .offset(kept)
    .limit(1_000)
    .execute();
  if (stale.length === 0) return;
  await db
    .deleteFrom('mcp_sessions')
    .where(
      'id',
      'in',
      stale.map((row) => row.id),
    )
    .execute();
}
