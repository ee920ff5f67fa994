/**
 * The optional sessions of the MCP server (docs/mcp.md): opened by an `initialize`, named by a
 * random id the client sends back as `Mcp-Session-Id`, kept in the store (only the id's hash) so
 * that any process answers any of their requests. A session belongs to the credential that opened
 * it: presented with another, it is not found, exactly as an unknown one. Each use moves its expiry
 * forward by MCP_SESSION_IDLE_MS.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { hashToken } from '../auth/tokens.js';
import {
  deleteExpiredMcpSessions,
  deleteMcpSession,
  findLiveMcpSession,
  insertMcpSession,
  touchMcpSession,
  trimMcpSessions,
  type McpSessionOwner,
} from '../store/mcp-sessions-repository.js';
import type { Database } from '../store/schema.js';

const SESSION_ID_PREFIX = 'mcs_';
const SESSION_ID_BYTES = 32;
const TOUCH_FRACTION = 10;

export interface McpSessionLimits {
  idleMilliseconds: number;
  perCredentialMaximum: number;
}

function ownerOf(context: CallContext): McpSessionOwner {
  return { userId: context.identity.userId, credential: context.identity.credential, credentialId: context.identity.credentialId };
}

export class McpSessions {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly limits: McpSessionLimits,
  ) {}

  private expiryFrom(now: Date): string {
    return new Date(now.getTime() + this.limits.idleMilliseconds).toISOString();
  }

  /** Opens a session for the caller and returns its id, which is shown only this once. */
  async open(context: CallContext): Promise<string> {
    const sessionId = SESSION_ID_PREFIX + randomBytes(SESSION_ID_BYTES).toString('base64url');
    const now = new Date();
    const owner = ownerOf(context);
    await deleteExpiredMcpSessions(this.db, now.toISOString());
    await insertMcpSession(this.db, { idHash: hashToken(sessionId), owner, now: now.toISOString(), expiresAt: this.expiryFrom(now) });
    await trimMcpSessions(this.db, owner, this.limits.perCredentialMaximum);
    return sessionId;
  }

  /** True, and the session's expiry moved forward, when the caller holds a live session with that id. */
  async use(context: CallContext, sessionId: string): Promise<boolean> {
    const now = new Date();
    const session = await findLiveMcpSession(this.db, hashToken(sessionId), ownerOf(context), now.toISOString());
    if (session === undefined) return false;
    // A notification stream uses its session on every poll: the expiry moves only when a tenth of
    // it has gone by, so open streams do not write to the store each time they look.
    if (now.getTime() - Date.parse(session.last_seen_at) < this.limits.idleMilliseconds / TOUCH_FRACTION) return true;
    await touchMcpSession(this.db, session.id, now.toISOString(), this.expiryFrom(now));
    return true;
  }

  /** Ends the caller's session with that id; false when they hold none such. */
  async end(context: CallContext, sessionId: string): Promise<boolean> {
    return deleteMcpSession(this.db, hashToken(sessionId), ownerOf(context));
  }
}
