/**
 * The account services as the command line uses them. Their callbacks clear a server process's
 * caches of identities; the command line is a process of its own with no such cache, and a
 * running server reads a changed account again within its cache lifetimes (docs/deployment.md, "Caches").
 */
import { ApiKeyService } from '../auth/api-key-service.js';
import { PasswordChangeService } from '../auth/password-change-service.js';
import { passwordRulesOf } from '../auth/passwords.js';
import { UserService } from '../auth/user-service.js';
import type { CommandSession } from './command-session.js';

const nothingCached = (): void => undefined;

export function userServiceOf(session: CommandSession): UserService {
  return new UserService(session.store.db, passwordRulesOf(session.settings), nothingCached);
}

export function passwordChangeServiceOf(session: CommandSession): PasswordChangeService {
  return new PasswordChangeService(session.store.db, passwordRulesOf(session.settings), nothingCached);
}

export function apiKeyServiceOf(session: CommandSession): ApiKeyService {
  return new ApiKeyService(session.store.db, nothingCached);
}
