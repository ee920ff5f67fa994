/**
 * The reads and writes of assistant rows that every assistant service shares (editing, sharing,
 * import and export, conversion): loading one after the permission module allows the action,
 * reading it back as the caller's view, the audit entry of a change, the one path metadata takes
 * into the store, and the audited insert of a new assistant, which writes the row and its audit
 * entry in one transaction.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { auditEntryOf } from '../auth/call-context.js';
import { requireAssistantAction, requireAssistantCreation, type AssistantAction } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import {
  assistantTypeOf,
  isOrchestrator,
  normalizeMetadata,
  type AssistantMetadata,
} from '../pipeline/assistant-metadata/metadata-normalizer.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import { findAssistant, insertAssistant, type AssistantRecord } from '../store/assistants-repository.js';
import { appendAuditEntry, type AuditEntry } from '../store/audit-log-repository.js';
import { nowTimestamp, toFlag, type Database } from '../store/schema.js';
import { assistantFacts, assistantView, type AssistantSummaryView, type AssistantView } from './assistant-view.js';
import type { ImportedAssistant } from './lamb-export.js';
import { requireInstalledPlugins } from './metadata-registry-check.js';
import { lockedOrganizationControls, requireAssistantRoom } from '../organizations/organization-quotas.js';
import { pluginsUsedBy, requireEnabledPlugins } from '../organizations/plugin-policy.js';

/** Metadata on its way into the store names its tools canonically already (storableMetadata). */
const sameName = (name: string): string => name;

/** The one path metadata takes into the store: normalised, then checked against the installed plugins. */
export function storableMetadata(value: unknown, registries: Registries): AssistantMetadata {
  return requireInstalledPlugins(normalizeMetadata(value), registries);
}

/** The assistant, once the permission module allows the caller `action` on it; 404 when the caller cannot see it. */
export async function loadAssistant(
  db: Kysely<Database>,
  context: CallContext,
  id: number,
  action: AssistantAction,
): Promise<AssistantRecord> {
  const record = await findAssistant(db, id, context.identity.userId);
  if (!record) throw new AppError('not_found', 'Assistant not found.');
  requireAssistantAction(context.identity, assistantFacts(record), action);
  return record;
}

/** The assistant as the caller sees it now, read back after a write the caller was allowed. */
export async function reloadAssistant(
  db: Kysely<Database>,
  context: CallContext,
  id: number,
): Promise<AssistantSummaryView | AssistantView> {
  const record = await findAssistant(db, id, context.identity.userId);
  return assistantView(context.identity, record!);
}

/** The audit entry of `action` by the caller on the assistant. */
export function assistantAuditEntry(
  context: CallContext,
  record: { id: number; organization_id: number },
  action: string,
  details?: AuditEntry['details'],
): AuditEntry {
  return auditEntryOf(context, { type: 'assistant', id: record.id, organizationId: record.organization_id }, action, details);
}

/** What a new assistant's audit entry says: its action (assistant.create, .import, .convert) and details. */
export interface InsertionAudit {
  action: string;
  details?: AuditEntry['details'];
}

/**
 * Stores a new assistant owned by the caller, in the caller's organization, unpublished, with its
 * audit entry in the same transaction, and returns it as the caller sees it; refused when the
 * organization has disabled a plugin it uses or its assistant limits are reached. The fields are taken
 * as they are: the caller has normalised and checked the metadata.
 */
export async function insertAssistantRecord(
  db: Kysely<Database>,
  context: CallContext,
  fields: ImportedAssistant,
  audit: InsertionAudit,
): Promise<AssistantView> {
  requireAssistantCreation(context.identity);
  const timestamp = nowTimestamp();
  const organizationId = context.identity.organizationId;
  const id = await db.transaction().execute(async (transaction) => {
    // Under the organization's lock, so concurrent creates are counted one after another (organization-quotas.ts).
    const controls = await lockedOrganizationControls(transaction, organizationId);
    requireEnabledPlugins(pluginsUsedBy(fields.metadata, sameName), controls.disabled, 'save');
    await requireAssistantRoom(transaction, { organizationId, ownerId: context.identity.userId, limits: controls.limits });
    const insertedId = await insertAssistant(transaction, {
      organization_id: organizationId,
      owner_id: context.identity.userId,
      name: fields.name,
      description: fields.description,
      system_prompt: fields.systemPrompt,
      prompt_template: fields.promptTemplate,
      metadata: JSON.stringify(fields.metadata),
      assistant_type: assistantTypeOf(fields.metadata),
      orchestrator: toFlag(isOrchestrator(fields.metadata)),
      rag_collections: fields.ragCollections.join(','),
      rag_top_k: fields.ragTopK,
      published: 0,
      published_at: null,
      deleted_at: null,
      created_at: timestamp,
      updated_at: timestamp,
    });
    await appendAuditEntry(
      transaction,
      assistantAuditEntry(context, { id: insertedId, organization_id: organizationId }, audit.action, audit.details),
    );
    return insertedId;
  });
  return (await reloadAssistant(db, context, id)) as AssistantView;
}
