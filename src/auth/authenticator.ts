/**
 * Turns credentials into an Identity: email and password into a session token at login, and a
 * bearer value (session token or API key) into the caller on every request. Disabled accounts,
 * expired or revoked sessions and deleted or expired keys fail closed; members of a suspended
 * organization are refused with organization_suspended (docs/organizations.md).
 */
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { findApiKeyByHash, markApiKeyUsed } from '../store/api-keys-repository.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import type { HotReadCache } from '../store/hot-read-cache.js';
import type { Database } from '../store/schema.js';
import { findLiveSession, insertSession, revokeSession } from '../store/sessions-repository.js';
import { findUserByEmail, findUserById, findUserOfLiveSession, updateUser, type UserWithRole } from '../store/users-repository.js';
import type { Identity } from './identity.js';
import { isLockedOutBySuspension } from './permissions.js';
import { hashPassword, needsRehash, verifyAgainstDecoy, verifyPassword } from './passwords.js';
import { rateLimited, type LoginLimitScope, type LoginReservation, type RateLimiter } from './rate-limiter.js';
import { API_KEY_PREFIX, generateSessionToken, hashToken, SESSION_TOKEN_PREFIX } from './tokens.js';

/** An API key's last-use time is written at most this often, so busy keys do not cost a write per request. */
const API_KEY_USE_RECORD_INTERVAL_MILLISECONDS = 60_000;

/** What the identity cache keeps of an API key: who it is, and when the key itself expires. */
export interface CachedApiKey {
  identity: Identity;
  keyId: number;
  /** The key's own expiry in epoch milliseconds; undefined when it never expires. */
  keyExpiresAt: number | undefined;
  /** When this process last recorded a use of the key (epoch milliseconds). */
  useRecordedAt: number;
}

export interface LoginResult {
  token: string;
  expiresAt: string;
  user: UserWithRole;
}

export function identityOf(
  user: UserWithRole,
  credential: Identity['credential'],
  credentialId: number,
  trustedFrontEnd = false,
): Identity {
  return {
    userId: user.id,
    email: user.email,
    name: user.name,
    organizationId: user.organization_id,
    role: user.role,
    isSystemAdmin: user.is_system_admin === 1,
    credential,
    credentialId,
    trustedFrontEnd,
    mustChangePassword: user.must_change_password === 1,
  };
}

/** A suspended organization's members are refused (403 organization_suspended), system admins never. */
function refuseIfSuspended(user: UserWithRole): void {
  if (isLockedOutBySuspension({ isSystemAdmin: user.is_system_admin === 1, organizationStatus: user.organization_status })) {
    throw new AppError('organization_suspended');
  }
}

export interface LoginAttempt {
  email: string;
  password: string;
  /** The client's address as the HTTP layer sees it (behind a proxy, per TRUST_PROXY). */
  clientAddress: string;
  requestId: string | null;
}

export class Authenticator {
  constructor(
    private readonly db: Kysely<Database>,
    /** The session lifetime (SESSION_TTL_HOURS) and the password hash cost. */
    private readonly rules: { sessionTtlHours: number; passwordHashCost: number },
    private readonly rateLimiter: RateLimiter,
    /** API key hash → identity, for API_KEY_CACHE_MS (docs/deployment.md, "Caches"). */
    private readonly apiKeyIdentities: HotReadCache<string, CachedApiKey>,
  ) {}

  /**
   * Checks the password unless the account or the client address has used up its failed logins
   * (429 with the seconds to wait; nothing is hashed then, so a locked-out guesser costs no CPU).
   * The attempt is counted before the hash is checked, so a burst cannot slip past the limit.
   */
  async login(attempt: LoginAttempt): Promise<LoginResult> {
    const { password, requestId } = attempt;
    const email = attempt.email.trim();
    const user = await findUserByEmail(this.db, email);
    const admission = await this.rateLimiter.admitLoginAttempt(this.rateLimiter.loginSubjects(email, attempt.clientAddress));
    if (!admission.admitted) {
      await this.recordLoginLockout('auth.login_refused', user?.id ?? null, admission, attempt);
      throw rateLimited(
        `Too many failed logins from ${admission.scope === 'account' ? 'this account' : 'this address'}; try again in ${admission.retryAfterSeconds} seconds.`,
        admission.retryAfterSeconds,
      );
    }
    const { reservation } = admission;
    if (user?.password_hash == null) {
      await verifyAgainstDecoy(password, this.rules.passwordHashCost);
      await this.recordFailedLogin(user?.id ?? null, 'unknown_user', requestId);
      await this.countFailure(reservation, user?.id ?? null, attempt);
      throw new AppError('invalid_credentials');
    }
    if (!(await verifyPassword(password, user.password_hash))) {
      await this.recordFailedLogin(user.id, 'wrong_password', requestId);
      await this.countFailure(reservation, user.id, attempt);
      throw new AppError('invalid_credentials');
    }
    if (user.disabled === 1) {
      await this.rateLimiter.releaseLoginAttempt(reservation);
      throw new AppError('account_disabled');
    }
    // Told only after the password proved right, so a guesser learns nothing of the organization.
    if (isLockedOutBySuspension({ isSystemAdmin: user.is_system_admin === 1, organizationStatus: user.organization_status })) {
      await this.rateLimiter.releaseLoginAttempt(reservation);
      throw new AppError('organization_suspended');
    }
    await this.rateLimiter.loginSucceeded(reservation);
    // A hash made at another PASSWORD_HASH_COST is stored again at this one while the password is at hand.
    const passwordHash = needsRehash(user.password_hash, this.rules.passwordHashCost)
      ? await hashPassword(password, this.rules.passwordHashCost)
      : undefined;
    const token = generateSessionToken();
    const expiresAt = new Date(Date.now() + this.rules.sessionTtlHours * 3_600_000).toISOString();
    await this.db.transaction().execute(async (transaction) => {
      if (passwordHash !== undefined) await updateUser(transaction, user, { passwordHash });
      const sessionId = await insertSession(transaction, user.id, hashToken(token), expiresAt);
      await appendAuditEntry(transaction, {
        actorUserId: user.id,
        organizationId: user.organization_id,
        action: 'auth.login',
        targetType: 'session',
        targetId: sessionId,
        requestId,
      });
    });
    return { token, expiresAt, user };
  }

  /**
   * Opens a session for a user who proved who they are some other way than a password (a signed
   * LTI launch); `via` names how, for the audit log.
   */
  async openSession(user: UserWithRole, via: string, requestId: string | null): Promise<LoginResult & { sessionId: number }> {
    if (user.disabled === 1) throw new AppError('account_disabled');
    refuseIfSuspended(user);
    const token = generateSessionToken();
    const expiresAt = new Date(Date.now() + this.rules.sessionTtlHours * 3_600_000).toISOString();
    const sessionId = await this.db.transaction().execute(async (transaction) => {
      const id = await insertSession(transaction, user.id, hashToken(token), expiresAt);
      await appendAuditEntry(transaction, {
        actorUserId: user.id,
        organizationId: user.organization_id,
        action: 'auth.login',
        targetType: 'session',
        targetId: id,
        details: { via },
        requestId,
      });
      return id;
    });
    return { token, expiresAt, user, sessionId };
  }

  /** The live session a browser's token names, or undefined; for pages that adapt to how the session began. */
  async liveSessionId(token: string): Promise<number | undefined> {
    if (!token.startsWith(SESSION_TOKEN_PREFIX)) return undefined;
    return (await findLiveSession(this.db, hashToken(token)))?.id;
  }

  private async countFailure(reservation: LoginReservation, userId: number | null, attempt: LoginAttempt): Promise<void> {
    for (const lockout of this.rateLimiter.loginFailed(reservation))
      await this.recordLoginLockout('auth.login_locked', userId, lockout, attempt);
  }

  /** `auth.login_locked` when a failure uses up a limit, `auth.login_refused` for each attempt refused while it lasts; never the password or the email typed. */
  private async recordLoginLockout(
    action: 'auth.login_locked' | 'auth.login_refused',
    userId: number | null,
    lockout: { scope: LoginLimitScope; retryAfterSeconds: number },
    attempt: LoginAttempt,
  ): Promise<void> {
    await appendAuditEntry(this.db, {
      actorUserId: null,
      organizationId: null,
      action,
      targetType: 'user',
      targetId: userId,
      details: { scope: lockout.scope, client_address: attempt.clientAddress, retry_after_seconds: lockout.retryAfterSeconds },
      requestId: attempt.requestId,
    });
  }

  private async recordFailedLogin(userId: number | null, reason: string, requestId: string | null): Promise<void> {
    await appendAuditEntry(this.db, {
      actorUserId: null,
      organizationId: null,
      action: 'auth.login_failed',
      targetType: 'user',
      targetId: userId,
      details: { reason },
      requestId,
    });
  }

  async logout(identity: Identity, requestId: string | null): Promise<void> {
    if (identity.credential !== 'session') {
      throw new AppError('invalid_body', 'Logout ends a session; to stop using an API key, delete it.');
    }
    await this.db.transaction().execute(async (transaction) => {
      await revokeSession(transaction, identity.credentialId);
      await appendAuditEntry(transaction, {
        actorUserId: identity.userId,
        organizationId: identity.organizationId,
        action: 'auth.logout',
        targetType: 'session',
        targetId: identity.credentialId,
        requestId,
      });
    });
  }

  /** Resolves a bearer value; every failure is the same 401 so callers learn nothing about which part was wrong. */
  async authenticate(bearer: string): Promise<Identity> {
    if (bearer.startsWith(SESSION_TOKEN_PREFIX)) return this.authenticateSession(bearer);
    if (bearer.startsWith(API_KEY_PREFIX)) return this.authenticateApiKey(bearer);
    throw new AppError('invalid_token');
  }

  private async authenticateSession(token: string): Promise<Identity> {
    const found = await findUserOfLiveSession(this.db, hashToken(token));
    if (found === undefined || found.user.disabled === 1) throw new AppError('invalid_token');
    refuseIfSuspended(found.user);
    return identityOf(found.user, 'session', found.sessionId);
  }

  /**
   * A key seen within API_KEY_CACHE_MS is answered from memory (its expiry still checked); else the
   * store is read. A key deleted or a user disabled through another process stops working here
   * within that window; through this process, at once (forgetApiKeys).
   */
  private async authenticateApiKey(key: string): Promise<Identity> {
    const keyHash = hashToken(key);
    const now = Date.now();
    const cached = this.apiKeyIdentities.get(keyHash) ?? (await this.loadApiKey(keyHash, now));
    if (cached.keyExpiresAt !== undefined && cached.keyExpiresAt <= now) {
      this.apiKeyIdentities.forget(keyHash);
      throw new AppError('invalid_token');
    }
    if (now - cached.useRecordedAt > API_KEY_USE_RECORD_INTERVAL_MILLISECONDS) {
      cached.useRecordedAt = now;
      await markApiKeyUsed(this.db, cached.keyId, new Date(now - API_KEY_USE_RECORD_INTERVAL_MILLISECONDS).toISOString());
    }
    return cached.identity;
  }

  private async loadApiKey(keyHash: string, now: number): Promise<CachedApiKey> {
    const apiKey = await findApiKeyByHash(this.db, keyHash);
    const user = apiKey && (await findUserById(this.db, apiKey.user_id));
    if (!apiKey || !user || user.disabled === 1) throw new AppError('invalid_token');
    // Not cached when refused, so reactivation takes effect at once.
    refuseIfSuspended(user);
    const cached: CachedApiKey = {
      identity: {
        ...identityOf(user, 'api_key', apiKey.id, apiKey.trusted_front_end === 1),
        ...(apiKey.source_links === 1 && { sourceLinks: true }),
      },
      keyId: apiKey.id,
      keyExpiresAt: apiKey.expires_at === null ? undefined : Date.parse(apiKey.expires_at),
      // A key used within the interval is not marked again; a key never used is marked at once.
      useRecordedAt: apiKey.last_used_at === null ? 0 : Math.min(now, Date.parse(apiKey.last_used_at)),
    };
    this.apiKeyIdentities.set(keyHash, cached);
    return cached;
  }
}
