/**
 * Which rows a list may include, as src/auth/permissions.ts decides it for a caller; each
 * repository turns its scope into a WHERE clause. Declared here, below the services, because the
 * store reads them and imports nothing from above it.
 */

/** Which assistants a list may include; the store turns this into a WHERE clause. */
export type AssistantListScope =
  { kind: 'all' } | { kind: 'organization'; organizationId: number } | { kind: 'member'; organizationId: number; userId: number };

export type KnowledgeBaseListScope = AssistantListScope;

export type UserListScope = { kind: 'all' } | { kind: 'organization'; organizationId: number; systemAdmins: 'excluded' };

/** Which files a list may include; the store turns this into a WHERE clause. */
export type FileListScope = { kind: 'all' } | { kind: 'organization'; organizationId: number } | { kind: 'owner'; userId: number };

/** Which rubrics a list may include; the store turns this into a WHERE clause. */
export type RubricListScope =
  | { kind: 'owner'; userId: number }
  | { kind: 'organization'; organizationId: number }
  | { kind: 'organization_member'; organizationId: number; userId: number };

/**
 * Which templates a list may include: the system-wide ones, the ones shared with the caller's
 * organization, and the caller's own.
 */
export interface TemplateListScope {
  userId: number;
  organizationId: number;
}

/**
 * Which chats a list may include: one's own, or (for an assistant's managers) the chats of that
 * assistant whose organization lets owners read its members' chats.
 */
export type ChatListScope = { kind: 'owner'; userId: number } | { kind: 'assistant_readers'; assistantId: number };

/**
 * Whose usage a report may include: everything, one organization's, or one person's own (their
 * own requests, and every request to the assistants they own).
 */
export type UsageScope = { kind: 'all' } | { kind: 'organization'; organizationId: number } | { kind: 'own'; userId: number };

/** Which audit entries a reader may see: every one, or those recorded for one organization. */
export type AuditScope = { kind: 'all' } | { kind: 'organization'; organizationId: number };
