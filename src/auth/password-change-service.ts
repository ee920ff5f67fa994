/**
 * One-time passwords: an admin resets someone's password to a random one-time password, shown
 * once in the answer; its holder may log in with it but must choose a new password
 * (POST /api/auth/password) before any other call (the HTTP layer asks requireOwnPasswordChosen).
 * Both steps end the user's other sessions and are audited.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import type { Database } from '../store/schema.js';
import { revokeUserSessions, revokeUserSessionsExcept } from '../store/sessions-repository.js';
import { findUserById, updateUser } from '../store/users-repository.js';
import { auditEntryOf, type CallContext } from './call-context.js';
import { hashPassword, requirePasswordLength, verifyPassword, type PasswordRules } from './passwords.js';
import { requireUserAction } from './permissions.js';
import type { PasswordChangeInput, PasswordResetView } from './user-schemas.js';
import { userView } from './user-view.js';

/** 18 random bytes: 24 URL-safe characters, easy to read out and far past any guessing. */
const ONE_TIME_PASSWORD_BYTES = 18;

export class PasswordChangeService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly passwordRules: PasswordRules,
    /** Called once a user's credentials changed, so this process's cached identities are read again. */
    private readonly onUserChanged: () => void,
  ) {}

  /** An admin (of the user's organization, or a system admin) sets a one-time password. */
  async reset(context: CallContext, userId: number): Promise<PasswordResetView> {
    const user = await findUserById(this.db, userId);
    if (!user) throw new AppError('not_found', 'User not found.');
    requireUserAction(
      context.identity,
      { userId: user.id, organizationId: user.organization_id, isSystemAdmin: user.is_system_admin === 1 },
      'update',
    );
    if (user.id === context.identity.userId) {
      throw new AppError('forbidden', 'Change your own password with POST /api/auth/password, not a reset.');
    }
    const oneTimePassword = randomBytes(ONE_TIME_PASSWORD_BYTES).toString('base64url');
    const passwordHash = await hashPassword(oneTimePassword, this.passwordRules.hashCost);
    await this.db.transaction().execute(async (transaction) => {
      await updateUser(transaction, user, { passwordHash, mustChangePassword: true });
      await revokeUserSessions(transaction, user.id);
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'user', id: user.id, organizationId: user.organization_id }, 'user.password_reset'),
      );
    });
    this.onUserChanged();
    return { one_time_password: oneTimePassword, user: userView((await findUserById(this.db, user.id))!) };
  }

  /** The caller chooses a new password, proving the current (perhaps one-time) one; their other sessions end. */
  async changeOwn(context: CallContext, input: PasswordChangeInput): Promise<void> {
    const user = await findUserById(this.db, context.identity.userId);
    if (!user) throw new AppError('invalid_token');
    if (user.password_hash === null || !(await verifyPassword(input.current_password, user.password_hash))) {
      throw new AppError('invalid_credentials', 'The current password is wrong.', { param: 'current_password' });
    }
    requirePasswordLength(input.new_password, this.passwordRules.lengthMinimum, 'new_password');
    if (input.new_password === input.current_password) {
      throw new AppError('weak_password', 'The new password must differ from the current one.', { param: 'new_password' });
    }
    const passwordHash = await hashPassword(input.new_password, this.passwordRules.hashCost);
    await this.db.transaction().execute(async (transaction) => {
      await updateUser(transaction, user, { passwordHash, mustChangePassword: false });
      const current = context.identity.credential === 'session' ? context.identity.credentialId : undefined;
      await revokeUserSessionsExcept(transaction, user.id, current);
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'user', id: user.id, organizationId: user.organization_id }, 'user.password_change'),
      );
    });
    this.onUserChanged();
  }
}
