/**
 * Self sign-up (docs/sign-up.md): a person with an organization's sign-up key makes their own
 * account in that organization, with the role its admins chose, and is signed in. Each attempt is
 * counted per client address before anything else is looked at (rate-limiter.ts).
 *
 * A refusal tells nothing about other accounts: a wrong, rotated or closed key and an email that
 * is already used get the same `sign_up_refused`, and take the same steps: the key is looked up and
 * the password hashed (scrypt, which dominates the time) whatever the outcome, and an existing email
 * is found by the unique index refusing the insert, not by an earlier read. Only the key's holder
 * learns more: that the organization is suspended, or which email domain it accepts.
 */
import type { Kysely } from 'kysely';
import { AppError } from '../../errors/app-error.js';
import { appendAuditEntry } from '../../store/audit-log-repository.js';
import { isUniqueViolation } from '../../store/files-repository.js';
import type { Database } from '../../store/schema.js';
import { findSignUpByKeyHash, type SignUpByKey } from '../../store/sign-up-repository.js';
import { findUserById, insertUser } from '../../store/users-repository.js';
import type { Authenticator, LoginResult } from '../authenticator.js';
import { hashPassword, requirePasswordLength, type PasswordRules } from '../passwords.js';
import type { RateLimiter } from '../rate-limiter.js';
import { hashSignUpKey } from './sign-up-key.js';
import type { SignUpInput } from './sign-up-schemas.js';

export interface SignUpServiceOptions {
  db: Kysely<Database>;
  rateLimiter: RateLimiter;
  authenticator: Authenticator;
  passwordRules: PasswordRules;
}

export interface SignUpAttempt {
  input: SignUpInput;
  /** The client's address as the HTTP layer sees it (behind a proxy, per TRUST_PROXY). */
  clientAddress: string;
  requestId: string | null;
}

type RefusalReason = 'unknown_key' | 'closed' | 'suspended' | 'email_domain' | 'email_taken';

type Decision =
  { kind: 'open'; organizationId: number; role: 'creator' | 'learner' } | { kind: 'refused'; reason: RefusalReason; error: AppError };

function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

export class SignUpService {
  constructor(private readonly options: SignUpServiceOptions) {}

  async signUp(attempt: SignUpAttempt): Promise<LoginResult> {
    const { db, rateLimiter, authenticator, passwordRules } = this.options;
    await rateLimiter.admitSignUpAttempt(attempt.clientAddress);
    const { input } = attempt;
    requirePasswordLength(input.password, passwordRules.lengthMinimum);
    const signUp = await findSignUpByKeyHash(db, hashSignUpKey(input.sign_up_key));
    // Hashed before any decision, so every refusal costs what a sign-up costs.
    const passwordHash = await hashPassword(input.password, passwordRules.hashCost);
    const decision = this.decide(signUp, input.email);
    if (decision.kind === 'refused') {
      await this.recordRefusal(attempt, decision.reason, signUp?.organization_id ?? null);
      throw decision.error;
    }
    const userId = await this.insertMember(attempt, { organizationId: decision.organizationId, passwordHash, role: decision.role });
    const user = (await findUserById(db, userId))!;
    return authenticator.openSession(user, 'sign_up', attempt.requestId);
  }

  /** Whether the key opens its organization to this email; an unknown and a closed key are told apart only in the audit log. */
  private decide(signUp: SignUpByKey | undefined, email: string): Decision {
    if (signUp === undefined) return { kind: 'refused', reason: 'unknown_key', error: new AppError('sign_up_refused') };
    if (signUp.enabled !== 1) return { kind: 'refused', reason: 'closed', error: new AppError('sign_up_refused') };
    if (signUp.organization_status !== 'active') {
      const error = new AppError('organization_suspended', 'This organization is suspended, so nobody can sign up to it now.');
      return { kind: 'refused', reason: 'suspended', error };
    }
    const allowed = signUp.allowed_email_domain;
    if (allowed !== null && emailDomain(email) !== allowed) {
      const error = new AppError('email_domain_not_allowed', `This sign-up key is only for email addresses at ${allowed}.`, {
        param: 'email',
        details: { allowed_email_domain: allowed },
      });
      return { kind: 'refused', reason: 'email_domain', error };
    }
    return { kind: 'open', organizationId: signUp.organization_id, role: signUp.role };
  }

  /** Inserts the account and its audit entry; the unique email index refuses a taken email, also between concurrent sign-ups. */
  private async insertMember(
    attempt: SignUpAttempt,
    member: { organizationId: number; passwordHash: string; role: 'creator' | 'learner' },
  ): Promise<number> {
    const { input, requestId } = attempt;
    try {
      return await this.options.db.transaction().execute(async (transaction) => {
        const id = await insertUser(transaction, {
          organizationId: member.organizationId,
          email: input.email.trim(),
          name: input.name.trim(),
          passwordHash: member.passwordHash,
          role: member.role,
          isSystemAdmin: false,
        });
        await appendAuditEntry(transaction, {
          actorUserId: id,
          organizationId: member.organizationId,
          action: 'user.sign_up',
          targetType: 'user',
          targetId: id,
          details: { role: member.role, client_address: attempt.clientAddress },
          requestId,
        });
        return id;
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await this.recordRefusal(attempt, 'email_taken', member.organizationId);
      throw new AppError('sign_up_refused');
    }
  }

  /** `auth.sign_up_refused` with why, for the organization's admins; never the email, the name or the key typed. */
  private async recordRefusal(attempt: SignUpAttempt, reason: RefusalReason, organizationId: number | null): Promise<void> {
    await appendAuditEntry(this.options.db, {
      actorUserId: null,
      organizationId,
      action: 'auth.sign_up_refused',
      targetType: 'organization',
      targetId: organizationId,
      details: { reason, client_address: attempt.clientAddress },
      requestId: attempt.requestId,
    });
  }
}
