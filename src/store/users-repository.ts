/** Users and their role in their organization. */
import type { Kysely } from 'kysely';
import type { UserListScope } from './list-scopes.js';
import { precompiledQuery } from './precompiled-query.js';
import { containsText, searchText } from './search-pattern.js';
import { nowTimestamp, toFlag, type Database, type OrganizationRole, type UserRow } from './schema.js';

/** A user with their role in their organization and that organization's status (`active` or `suspended`). */
export type UserWithRole = UserRow & { role: OrganizationRole; organization_status: string };

export interface NewUser {
  organizationId: number;
  email: string;
  name: string;
  passwordHash: string | null;
  role: OrganizationRole;
  isSystemAdmin: boolean;
}

/** Inserts the user and their organization role; call it inside a transaction. */
export async function insertUser(db: Kysely<Database>, user: NewUser): Promise<number> {
  const timestamp = nowTimestamp();
  const { id } = await db
    .insertInto('users')
    .values({
      organization_id: user.organizationId,
      email: user.email.toLowerCase(),
      name: user.name,
      search_text: searchText(user.email, user.name),
      password_hash: user.passwordHash,
      is_system_admin: toFlag(user.isSystemAdmin),
      disabled: 0,
      created_at: timestamp,
      updated_at: timestamp,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('organization_roles')
    .values({ organization_id: user.organizationId, user_id: id, role: user.role, created_at: timestamp })
    .execute();
  return id;
}

function selectUsersWithRole(db: Kysely<Database>) {
  return (
    db
      .selectFrom('users')
      .leftJoin('organization_roles', (join) =>
        join.onRef('organization_roles.user_id', '=', 'users.id').onRef('organization_roles.organization_id', '=', 'users.organization_id'),
      )
      // Authentication reads the organization's status with the user, in the same query.
      .innerJoin('organizations', 'organizations.id', 'users.organization_id')
      .selectAll('users')
      .select(['organization_roles.role', 'organizations.status as organization_status'])
  );
}

function withDefaultRole(row: UserRow & { role: OrganizationRole | null; organization_status: string }): UserWithRole {
  return { ...row, role: row.role ?? 'learner' };
}

export async function findUserById(db: Kysely<Database>, id: number): Promise<UserWithRole | undefined> {
  const row = await selectUsersWithRole(db).where('users.id', '=', id).executeTakeFirst();
  return row && withDefaultRole(row);
}

// Every request a browser session makes reads it: compiled once (precompiled-query.ts).
const selectUserOfLiveSession = precompiledQuery(['tokenHash', 'now'], (db: Kysely<Database>, { tokenHash, now }) =>
  selectUsersWithRole(db)
    .innerJoin('sessions', 'sessions.user_id', 'users.id')
    .select('sessions.id as session_id')
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.revoked_at', 'is', null)
    .where('sessions.expires_at', '>', now),
);

/**
 * The user of a session that exists, is not revoked and has not expired, with the session's id: one
 * query where authentication read the session and then its user (on PostgreSQL, a round trip fewer
 * on every request a session makes).
 */
export async function findUserOfLiveSession(
  db: Kysely<Database>,
  tokenHash: string,
): Promise<{ sessionId: number; user: UserWithRole } | undefined> {
  const [row] = await selectUserOfLiveSession(db, { tokenHash, now: nowTimestamp() });
  if (row === undefined) return undefined;
  const { session_id: sessionId, ...user } = row;
  return { sessionId, user: withDefaultRole(user) };
}

export async function findUserByEmail(db: Kysely<Database>, email: string): Promise<UserWithRole | undefined> {
  const row = await selectUsersWithRole(db).where('users.email', '=', email.toLowerCase()).executeTakeFirst();
  return row && withDefaultRole(row);
}

export async function findUsersByEmails(db: Kysely<Database>, emails: string[]): Promise<UserRow[]> {
  if (emails.length === 0) return [];
  return db
    .selectFrom('users')
    .selectAll()
    .where(
      'email',
      'in',
      emails.map((email) => email.toLowerCase()),
    )
    .execute();
}

export interface UserListQuery {
  limit: number;
  offset: number;
  search: string | undefined;
  role?: OrganizationRole | undefined;
  disabled?: boolean | undefined;
  organizationId?: number | undefined;
}

export async function listUsers(
  db: Kysely<Database>,
  scope: UserListScope,
  query: UserListQuery,
): Promise<{ items: UserWithRole[]; total: number }> {
  let filtered = selectUsersWithRole(db);
  // The same predicate as userScopeIncludes in permissions.ts, so lists and reads by id agree.
  if (scope.kind === 'organization')
    filtered = filtered.where('users.organization_id', '=', scope.organizationId).where('users.is_system_admin', '=', 0);
  if (query.search !== undefined) filtered = filtered.where(containsText('users.search_text', query.search));
  if (query.role !== undefined) filtered = filtered.where('organization_roles.role', '=', query.role);
  if (query.disabled !== undefined) filtered = filtered.where('users.disabled', '=', toFlag(query.disabled));
  if (query.organizationId !== undefined) filtered = filtered.where('users.organization_id', '=', query.organizationId);
  const rows = await filtered.orderBy('users.id').limit(query.limit).offset(query.offset).execute();
  const { total } = await filtered
    .clearSelect()
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return { items: rows.map(withDefaultRole), total: Number(total) };
}

export interface UserChanges {
  name?: string;
  passwordHash?: string;
  disabled?: boolean;
  isSystemAdmin?: boolean;
  role?: OrganizationRole;
  /** Set with a one-time password, cleared when its holder chooses their own. */
  mustChangePassword?: boolean;
}

/** Applies the changes; call it inside a transaction when several are given. */
export async function updateUser(db: Kysely<Database>, user: UserWithRole, changes: UserChanges): Promise<void> {
  const timestamp = nowTimestamp();
  await db
    .updateTable('users')
    .set({
      ...(changes.name !== undefined && { name: changes.name, search_text: searchText(user.email, changes.name) }),
      ...(changes.passwordHash !== undefined && { password_hash: changes.passwordHash }),
      ...(changes.disabled !== undefined && { disabled: toFlag(changes.disabled) }),
      ...(changes.isSystemAdmin !== undefined && { is_system_admin: toFlag(changes.isSystemAdmin) }),
      ...(changes.mustChangePassword !== undefined && { must_change_password: toFlag(changes.mustChangePassword) }),
      updated_at: timestamp,
    })
    .where('id', '=', user.id)
    .execute();
  if (changes.role !== undefined) {
    await db.deleteFrom('organization_roles').where('user_id', '=', user.id).where('organization_id', '=', user.organization_id).execute();
    await db
      .insertInto('organization_roles')
      .values({ organization_id: user.organization_id, user_id: user.id, role: changes.role, created_at: timestamp })
      .execute();
  }
}

export async function countUsers(db: Kysely<Database>): Promise<number> {
  const { total } = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll().as('total'))
    .executeTakeFirstOrThrow();
  return Number(total);
}
