/**
 * Assistants: create, read, list, update, soft-delete, publish, and the assistant-tool candidates
 * the editor offers. Sharing, import and export, and conversion have their own services beside it
 * (assistant-sharing-service.ts, assistant-transfer-service.ts, assistant-conversion-service.ts),
 * sharing assistant-records.ts. Every method asks the permission module first; every write
 * normalises metadata through the one normalizer, checks it against the installed plugins
 * (metadata-registry-check.ts) and records an audit entry in the same transaction. An
 * orchestrator's assistant tools are checked too, as the assistant's owner would use them
 * (assistant-tool-targets.ts), and so are the files its single-file tools name
 * (assistant-file-references.ts), and the MCP servers its MCP tools name (assistant-mcp-servers.ts):
 * a refused target, file or server is refused before anything is stored.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { assistantListScope, requireAssistantCreation } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import { assistantTypeOf, isOrchestrator, type AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import { lockedOrganizationControls } from '../organizations/organization-quotas.js';
import { pluginsUsedBy, requireEnabledPlugins } from '../organizations/plugin-policy.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import { listAssistants, updateAssistant } from '../store/assistants-repository.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { nowTimestamp, toFlag, type AssistantUpdate, type Database } from '../store/schema.js';
import { assistantAuditEntry, insertAssistantRecord, loadAssistant, reloadAssistant, storableMetadata } from './assistant-records.js';
import type { AssistantInput, AssistantListInput, AssistantPatch } from './assistant-schemas.js';
import { requireReadableFiles, type FileReadCheck } from './assistant-file-references.js';
import { requireOwnMcpServers } from './assistant-mcp-servers.js';
import { assistantOwnerIdentity, requireUsableTargets, toolCandidatesOf, type ToolCandidateView } from './assistant-tool-targets.js';
import { assistantView, splitCollections, type AssistantSummaryView, type AssistantView } from './assistant-view.js';

/** Fields a client may send back from a GET but never change. */
const IMMUTABLE_FIELDS = ['id', 'owner', 'owner_id', 'organization_id'] as const;

function requireName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '') throw new AppError('invalid_body', 'The name must not be empty.', { param: 'name' });
  return trimmed;
}

function parseCollections(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const collections = typeof value === 'string' ? splitCollections(value) : value.map((collection) => collection.trim());
  collections.forEach((collection, index) => {
    if (collection === '' || collection.includes(',')) {
      throw new AppError('invalid_body', 'A collection id must be non-empty and must not contain a comma.', {
        param: `rag_collections[${index}]`,
      });
    }
  });
  return [...new Set(collections)];
}

export class AssistantService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly registries: Registries,
    private readonly mayReadFile: FileReadCheck,
  ) {}

  async create(context: CallContext, input: AssistantInput): Promise<AssistantView> {
    requireAssistantCreation(context.identity);
    const metadata = storableMetadata(input.metadata ?? {}, this.registries);
    // The caller will own it, so its assistant tools are checked as the caller.
    await requireUsableTargets(this.db, metadata, context.identity, undefined);
    await requireReadableFiles(metadata, context.identity, this.mayReadFile);
    await requireOwnMcpServers(this.db, metadata, context.identity);
    return insertAssistantRecord(
      this.db,
      context,
      {
        name: requireName(input.name),
        description: input.description ?? '',
        systemPrompt: input.system_prompt ?? '',
        promptTemplate: input.prompt_template ?? '',
        metadata,
        ragCollections: parseCollections(input.rag_collections),
        ragTopK: input.rag_top_k ?? 3,
      },
      { action: 'assistant.create' },
    );
  }

  async list(
    context: CallContext,
    query: AssistantListInput,
  ): Promise<{ items: Array<AssistantSummaryView | AssistantView>; total: number }> {
    const page = await listAssistants(this.db, assistantListScope(context.identity), context.identity.userId, {
      limit: query.limit,
      offset: query.offset,
      search: query.q,
      type: query.type,
    });
    return { items: page.items.map((record) => assistantView(context.identity, record)), total: page.total };
  }

  async get(context: CallContext, id: number): Promise<AssistantSummaryView | AssistantView> {
    return assistantView(context.identity, await loadAssistant(this.db, context, id, 'view'));
  }

  async update(context: CallContext, id: number, patch: AssistantPatch): Promise<AssistantSummaryView | AssistantView> {
    const record = await loadAssistant(this.db, context, id, 'update');
    for (const field of IMMUTABLE_FIELDS) {
      if (field in patch) throw new AppError('immutable_field', `The field "${field}" cannot be changed.`, { param: field });
    }
    const changes: AssistantUpdate = {};
    if (patch.name !== undefined) changes.name = requireName(patch.name);
    if (patch.description !== undefined) changes.description = patch.description;
    if (patch.system_prompt !== undefined) changes.system_prompt = patch.system_prompt;
    if (patch.prompt_template !== undefined) changes.prompt_template = patch.prompt_template;
    if (patch.rag_collections !== undefined) changes.rag_collections = parseCollections(patch.rag_collections).join(',');
    if (patch.rag_top_k !== undefined) changes.rag_top_k = patch.rag_top_k;
    let metadata: AssistantMetadata | undefined;
    if (patch.metadata !== undefined) {
      metadata = storableMetadata(patch.metadata, this.registries);
      // Checked as the stored owner, who the tools run as, even when an administrator saves.
      const owner = await assistantOwnerIdentity(this.db, record);
      await requireUsableTargets(this.db, metadata, owner, record.id);
      await requireReadableFiles(metadata, owner, this.mayReadFile);
      await requireOwnMcpServers(this.db, metadata, owner);
      changes.metadata = JSON.stringify(metadata);
      changes.assistant_type = assistantTypeOf(metadata);
      changes.orchestrator = toFlag(isOrchestrator(metadata));
    }
    await this.db.transaction().execute(async (transaction) => {
      if (metadata !== undefined) {
        const { disabled } = await lockedOrganizationControls(transaction, record.organization_id);
        // Stored metadata names its tools canonically (storableMetadata).
        requireEnabledPlugins(
          pluginsUsedBy(metadata, (name) => name),
          disabled,
          'save',
        );
      }
      await updateAssistant(transaction, record, changes);
      await appendAuditEntry(
        transaction,
        assistantAuditEntry(context, record, 'assistant.update', { fields: Object.keys(changes).sort() }),
      );
    });
    return reloadAssistant(this.db, context, id);
  }

  /**
   * Every assistant the owner of assistant `id` can see, and whether it may be one of its
   * assistant tools (assistant-tool-targets.ts). The caller must be allowed to update the assistant.
   */
  async toolCandidates(context: CallContext, id: number): Promise<{ items: ToolCandidateView[]; truncated: boolean }> {
    const record = await loadAssistant(this.db, context, id, 'update');
    return toolCandidatesOf(this.db, await assistantOwnerIdentity(this.db, record), record.id);
  }

  async delete(context: CallContext, id: number): Promise<void> {
    const record = await loadAssistant(this.db, context, id, 'delete');
    await this.db.transaction().execute(async (transaction) => {
      await updateAssistant(transaction, record, { deleted_at: nowTimestamp() });
      await appendAuditEntry(transaction, assistantAuditEntry(context, record, 'assistant.delete'));
    });
  }

  async publish(context: CallContext, id: number, published: boolean): Promise<AssistantSummaryView | AssistantView> {
    const record = await loadAssistant(this.db, context, id, 'publish');
    await this.db.transaction().execute(async (transaction) => {
      await updateAssistant(transaction, record, { published: toFlag(published), published_at: published ? nowTimestamp() : null });
      await appendAuditEntry(transaction, assistantAuditEntry(context, record, published ? 'assistant.publish' : 'assistant.unpublish'));
    });
    return reloadAssistant(this.db, context, id);
  }
}
