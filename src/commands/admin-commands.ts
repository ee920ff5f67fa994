/** Every admin command of `merino <command>`, in the order `merino help` lists them; one file per command beside this one. */
import type { AdminCommand } from './admin-command.js';
import { backupCommand } from './backup.js';
import { createApiKeyCommand } from './create-api-key.js';
import { createOrganizationCommand } from './create-organization.js';
import { createUserCommand } from './create-user.js';
import { importLambExportCommand } from './import-lamb-export.js';
import { migrationsCommand } from './migrations.js';
import { resetPasswordCommand } from './reset-password.js';
import { setRoleCommand } from './set-role.js';
import { usageCommand } from './usage.js';

export const ADMIN_COMMANDS: readonly AdminCommand[] = [
  createOrganizationCommand,
  createUserCommand,
  setRoleCommand,
  resetPasswordCommand,
  createApiKeyCommand,
  usageCommand,
  backupCommand,
  migrationsCommand,
  importLambExportCommand,
];
