/**
 * What every command works with: the server's own settings (DATABASE_URL, DATA_DIR, … read the
 * same way, so the command line and the server always see one store), the store, and the call
 * context of the command line itself. The command line acts as the system: a system
 * administrator with no account (user id 0, credential `command_line`), so each service still
 * asks the permission module and writes its audit entry, with the request id `cli:<command>`.
 */
import type { CallContext } from '../auth/call-context.js';
import type { Settings } from '../config/settings.js';
import { AppError } from '../errors/app-error.js';
import { ensureSystemOrganization, findOrganizationById } from '../store/organizations-repository.js';
import { findOrganizationBySlug } from '../store/organization-lookup-repository.js';
import type { OrganizationRow } from '../store/schema.js';
import type { Store } from '../store/store.js';
import { findUserByEmail, findUserById, type UserWithRole } from '../store/users-repository.js';

export interface CommandSession {
  settings: Settings;
  store: Store;
  /** The command line's call context: the system, as a system administrator. */
  system: CallContext;
  /** Writes one line of the command's answer to standard output. */
  print(line: string): void;
}

/**
 * The call context of a command: the system organization's id, and the command's name as the
 * request id in the audit log. On a store left unmigrated (migrations, backup) nothing is read,
 * and the context names no organization: those commands call no service.
 */
export async function systemContextFor(store: Store, commandName: string, migrated: boolean): Promise<CallContext> {
  const organizationId = migrated ? (await ensureSystemOrganization(store.db)).id : 0;
  return {
    identity: {
      userId: 0,
      email: 'command-line',
      name: 'Command line',
      organizationId,
      role: 'admin',
      isSystemAdmin: true,
      credential: 'command_line',
      credentialId: 0,
      trustedFrontEnd: false,
    },
    requestId: `cli:${commandName}`,
  };
}

/** An organization named by its slug or its id, or `unknown_organization`. */
export async function organizationNamed(store: Store, reference: string): Promise<OrganizationRow> {
  const found = /^\d{1,10}$/.test(reference)
    ? await findOrganizationById(store.db, Number(reference))
    : await findOrganizationBySlug(store.db, reference);
  if (found === undefined) throw new AppError('unknown_organization', `There is no organization "${reference}".`);
  return found;
}

/** A user named by email or id, or `not_found`. */
export async function userNamed(store: Store, reference: string): Promise<UserWithRole> {
  const found = /^\d{1,10}$/.test(reference) ? await findUserById(store.db, Number(reference)) : await findUserByEmail(store.db, reference);
  if (found === undefined) throw new AppError('not_found', `There is no user "${reference}".`);
  return found;
}
