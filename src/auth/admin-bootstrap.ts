/**
 * First start: make sure the system organization exists and, on a store with no users, create
 * the first system administrator. Without MERINO_ADMIN_PASSWORD a password is generated and
 * handed back once so that start-up can print it to the console; it is never logged or stored.
 */
import type { Kysely } from 'kysely';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { ensureSystemOrganization } from '../store/organizations-repository.js';
import type { Database } from '../store/schema.js';
import { countUsers, insertUser } from '../store/users-repository.js';
import { generatePassword, hashPassword } from './passwords.js';

export const DEFAULT_ADMIN_EMAIL = 'admin@merino.local';

export type BootstrapResult = { created: false } | { created: true; email: string; generatedPassword: string | undefined };

export async function bootstrapAdmin(
  db: Kysely<Database>,
  adminEmail: string | undefined,
  adminPassword: string | undefined,
  passwordHashCost: number,
): Promise<BootstrapResult> {
  const organization = await ensureSystemOrganization(db);
  const email = adminEmail ?? DEFAULT_ADMIN_EMAIL;
  const generatedPassword = adminPassword === undefined ? generatePassword() : undefined;
  const passwordHash = await hashPassword(adminPassword ?? generatedPassword ?? '', passwordHashCost);
  try {
    return await createFirstAdmin(db, { organizationId: organization.id, email, passwordHash, generatedPassword });
  } catch (error) {
    // Two processes starting on one fresh store: the unique email makes the loser's insert fail
    // and roll back, and the winner's admin is the one that counts.
    if ((await countUsers(db)) > 0) return { created: false };
    throw error;
  }
}

/** The first system administrator, as bootstrapAdmin prepared it. */
interface FirstAdmin {
  organizationId: number;
  email: string;
  passwordHash: string;
  /** Handed back once so that start-up can print it; undefined when MERINO_ADMIN_PASSWORD chose the password. */
  generatedPassword: string | undefined;
}

async function createFirstAdmin(db: Kysely<Database>, firstAdmin: FirstAdmin): Promise<BootstrapResult> {
  const { organizationId, email, passwordHash, generatedPassword } = firstAdmin;
  return db.transaction().execute(async (transaction): Promise<BootstrapResult> => {
    if ((await countUsers(transaction)) > 0) return { created: false };
    const userId = await insertUser(transaction, {
      organizationId,
      email,
      name: 'Administrator',
      passwordHash,
      role: 'admin',
      isSystemAdmin: true,
    });
    await appendAuditEntry(transaction, {
      actorUserId: null,
      organizationId,
      action: 'user.bootstrap_admin',
      targetType: 'user',
      targetId: userId,
    });
    return { created: true, email, generatedPassword };
  });
}
