/** Administration of user accounts: create, list, change role, disable. */
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { findOrganizationById } from '../store/organizations-repository.js';
import type { Database } from '../store/schema.js';
import { revokeUserSessions } from '../store/sessions-repository.js';
import {
  findUserByEmail,
  findUserById,
  insertUser,
  listUsers,
  updateUser,
  type UserChanges,
  type UserWithRole,
} from '../store/users-repository.js';
import type { CallContext } from './call-context.js';
import { hashPassword, requirePasswordLength, type PasswordRules } from './passwords.js';
import {
  requireSystemAdminGrant,
  requireUserAction,
  requireUserAdministration,
  requireUserCreation,
  requireUserListOrganization,
  requireUserMove,
} from './permissions.js';
import { auditEntryOf } from './call-context.js';
import { clashingRubricIds, moveUserToOrganization } from '../store/user-moves-repository.js';
import type { NewUserInput, UserPatchInput, UserView, userListFilterProperties } from './user-schemas.js';
import { userView } from './user-view.js';
import type { PageQuery } from '../validation/page-query-schema.js';

export class UserService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly passwordRules: PasswordRules,
    /** Called once a user is changed (disabled, role, name), so this process's cached identities are read again. */
    private readonly onUserChanged: () => void,
  ) {}

  private checkPassword(password: string): void {
    requirePasswordLength(password, this.passwordRules.lengthMinimum);
  }

  async create(context: CallContext, input: NewUserInput): Promise<UserView> {
    const organizationId = input.organization_id ?? context.identity.organizationId;
    const isSystemAdmin = input.is_system_admin ?? false;
    requireUserCreation(context.identity, { organizationId, isSystemAdmin });
    this.checkPassword(input.password);
    if (!(await findOrganizationById(this.db, organizationId))) {
      throw new AppError('unknown_organization', `Organization ${organizationId} does not exist.`, { param: 'organization_id' });
    }
    if (await findUserByEmail(this.db, input.email)) throw new AppError('email_taken', undefined, { param: 'email' });
    const passwordHash = await hashPassword(input.password, this.passwordRules.hashCost);
    const userId = await this.db.transaction().execute(async (transaction) => {
      const id = await insertUser(transaction, {
        organizationId,
        email: input.email.trim(),
        name: input.name?.trim() ?? '',
        passwordHash,
        role: input.role,
        isSystemAdmin,
      });
      await appendAuditEntry(transaction, {
        actorUserId: context.identity.userId,
        organizationId,
        action: 'user.create',
        targetType: 'user',
        targetId: id,
        details: { role: input.role, is_system_admin: isSystemAdmin },
        requestId: context.requestId,
      });
      return id;
    });
    return userView((await findUserById(this.db, userId))!);
  }

  async me(context: CallContext): Promise<UserView> {
    const user = await findUserById(this.db, context.identity.userId);
    if (!user) throw new AppError('invalid_token');
    return userView(user);
  }

  async get(context: CallContext, userId: number): Promise<UserView> {
    const user = await findUserById(this.db, userId);
    if (!user) throw new AppError('not_found', 'User not found.');
    requireUserAction(
      context.identity,
      { userId: user.id, organizationId: user.organization_id, isSystemAdmin: user.is_system_admin === 1 },
      'view',
    );
    return userView(user);
  }

  async list(context: CallContext, query: PageQuery<typeof userListFilterProperties>): Promise<{ items: UserView[]; total: number }> {
    const scope = requireUserAdministration(context.identity);
    requireUserListOrganization(scope, query.organization_id);
    const page = await listUsers(this.db, scope, {
      limit: query.limit,
      offset: query.offset,
      search: query.q,
      role: query.role,
      disabled: query.status === undefined ? undefined : query.status === 'disabled',
      organizationId: query.organization_id,
    });
    return { items: page.items.map(userView), total: page.total };
  }

  async update(context: CallContext, userId: number, patch: UserPatchInput): Promise<UserView> {
    const user = await findUserById(this.db, userId);
    if (!user) throw new AppError('not_found', 'User not found.');
    requireUserAction(
      context.identity,
      { userId: user.id, organizationId: user.organization_id, isSystemAdmin: user.is_system_admin === 1 },
      'update',
    );
    if (patch.is_system_admin !== undefined) requireSystemAdminGrant(context.identity);
    const move = patch.organization_id !== undefined && patch.organization_id !== user.organization_id;
    if (patch.organization_id !== undefined) requireUserMove(context.identity);
    if (move) await this.refuseImpossibleMove(user, patch.organization_id!);
    this.refuseSelfLockout(context, user.id, patch);
    if (patch.password !== undefined) this.checkPassword(patch.password);
    const changes: UserChanges = {
      ...(patch.name !== undefined && { name: patch.name.trim() }),
      ...(patch.password !== undefined && { passwordHash: await hashPassword(patch.password, this.passwordRules.hashCost) }),
      ...(patch.role !== undefined && !move && { role: patch.role }),
      ...(patch.disabled !== undefined && { disabled: patch.disabled }),
      ...(patch.is_system_admin !== undefined && { isSystemAdmin: patch.is_system_admin }),
    };
    await this.db.transaction().execute(async (transaction) => {
      await updateUser(transaction, user, changes);
      const moved = move
        ? await moveUserToOrganization(transaction, {
            userId: user.id,
            fromOrganizationId: user.organization_id,
            toOrganizationId: patch.organization_id!,
            role: patch.role ?? user.role,
          })
        : undefined;
      // A disabled account or a changed password must not keep its old sessions alive.
      if (patch.disabled === true || patch.password !== undefined) await revokeUserSessions(transaction, user.id);
      await appendAuditEntry(transaction, {
        actorUserId: context.identity.userId,
        organizationId: user.organization_id,
        action: 'user.update',
        targetType: 'user',
        targetId: user.id,
        details: { fields: Object.keys(patch).sort() },
        requestId: context.requestId,
      });
      if (moved) {
        const details = { from_organization_id: user.organization_id, to_organization_id: patch.organization_id!, ...moved };
        await appendAuditEntry(
          transaction,
          auditEntryOf(context, { type: 'user', id: user.id, organizationId: patch.organization_id! }, 'user.move', details),
        );
      }
    });
    this.onUserChanged();
    return userView((await findUserById(this.db, user.id))!);
  }

  /** The target organization must exist, and the user's rubric ids must be free there (they are unique per organization). */
  private async refuseImpossibleMove(user: UserWithRole, toOrganizationId: number): Promise<void> {
    if (!(await findOrganizationById(this.db, toOrganizationId))) {
      throw new AppError('unknown_organization', `Organization ${toOrganizationId} does not exist.`, { param: 'organization_id' });
    }
    const clashes = await clashingRubricIds(this.db, {
      userId: user.id,
      fromOrganizationId: user.organization_id,
      toOrganizationId,
      role: user.role,
    });
    if (clashes.length > 0) {
      throw new AppError(
        'rubric_id_taken',
        `The target organization already has rubrics with the ids ${clashes.slice(0, 10).join(', ')}; rename them first.`,
        {
          param: 'organization_id',
        },
      );
    }
  }

  /**
   * Nobody may lock themselves out. Since only system administrators can change system
   * administrators, this also means the last active one can never be disabled or demoted.
   */
  private refuseSelfLockout(context: CallContext, userId: number, patch: UserPatchInput): void {
    const self = userId === context.identity.userId;
    if (self && patch.disabled === true) throw new AppError('forbidden', 'You cannot disable your own account.');
    if (self && patch.is_system_admin === false) throw new AppError('forbidden', 'You cannot remove your own system administration.');
    if (
      self &&
      patch.role !== undefined &&
      patch.role !== 'admin' &&
      context.identity.role === 'admin' &&
      !context.identity.isSystemAdmin
    ) {
      throw new AppError('forbidden', 'You cannot remove your own admin role.');
    }
  }
}
