/**
 * Assistants: create, read, update, soft-delete, publish, share, export and import. Every
 * method asks the permission module first; every write normalises metadata through the one
 * normalizer, checks it against the installed plugins (metadata-registry-check.ts) and records
 * an audit entry in the same transaction. An orchestrator's assistant tools are checked too, as
 * the assistant's owner would use them (DESIGN §1): a target that does not exist, is the assistant
 * itself, is not the owner's to use or is an orchestrator is refused before anything is stored.
 */
import type { Kysely } from 'kysely';
import { identityOf } from '../auth/authenticator.js';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import {
  assistantListScope,
  decideAssistantTool,
  requireAssistantAction,
  requireAssistantConversion,
  requireAssistantCreation,
  type AssistantAction,
  type AssistantToolRefusal,
} from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import {
  findAssistant,
  insertAssistant,
  listAssistants,
  listShares,
  replaceShares,
  updateAssistant,
  type AssistantRecord,
} from '../store/assistants-repository.js';
import { appendAuditEntry, type AuditEntry } from '../store/audit-log-repository.js';
import { auditEntryOf } from '../auth/call-context.js';
import { nowTimestamp, toFlag, type AssistantUpdate, type Database } from '../store/schema.js';
import { findUserById, findUsersByEmails } from '../store/users-repository.js';
import { trimCharacters } from '../validation/trim-characters.js';
import type { FieldProblem } from '../validation/json-schema-problems.js';
import {
  assistantFacts,
  assistantView,
  snapshotOf,
  splitCollections,
  type AssistantSummaryView,
  type AssistantView,
} from './assistant-view.js';
import { asImportMetadataError, fromImportDocument, toExportDocument, type ImportedAssistant } from './lamb-export.js';
import {
  assistantToolTargets,
  assistantTypeOf,
  isOrchestrator,
  normalizeMetadata,
  type AssistantMetadata,
} from '../pipeline/assistant-metadata/metadata-normalizer.js';
import { requireInstalledPlugins } from './metadata-registry-check.js';
import { blockingProblemsOf, missingReferences, type ImportProblem, type ReferenceReaders } from './import-references.js';
import { convertClassicAssistant, type ConvertibleTool } from '../pipeline/classic-conversion.js';
import type { AssistantInput, AssistantListInput, AssistantPatch } from './assistant-schemas.js';

/** One assistant the owner of an orchestrator could pick as an assistant tool, and whether they may. */
export interface ToolCandidateView {
  id: number;
  name: string;
  description: string;
  owner: string;
  available: boolean;
  reason?: Exclude<AssistantToolRefusal, 'not_found'>;
}

/** The most assistants `GET /api/assistants/{id}/tool-candidates` looks at; `truncated` says when there were more. */
export const TOOL_CANDIDATES_MAXIMUM = 500;
const TOOL_CANDIDATES_PAGE_SIZE = 100;

/** Why a save-time check refuses a target. not_found and not_permitted read alike, so ids of assistants the owner cannot see are not revealed. */
function targetRefusalMessage(path: string, targetId: number, refusal: AssistantToolRefusal, owner: Identity): string {
  switch (refusal) {
    case 'self':
      return `${path} names assistant ${targetId}, which is this assistant itself; an assistant cannot use itself as a tool.`;
    case 'orchestrator':
      return `${path} names assistant ${targetId}, which uses other assistants itself (it is an orchestrator), so it cannot be used as a tool.`;
    case 'not_found':
    case 'not_permitted':
      return `${path} names assistant ${targetId}, which does not exist or which this assistant's owner (${owner.email}) may not use: it is not theirs, not shared with them, and not published to their organization.`;
  }
}

/** What a dry run of a conversion shows: what the new assistant would get, and 001 §10.7's log line. */
export interface ConversionPreview {
  metadata: AssistantMetadata;
  prompt_template: string;
  log: string;
}

/** The name schema's limit (assistant-schemas.ts): a converted assistant's name is cut to fit it. */
const NAME_LENGTH_MAXIMUM = 200;
const CONVERTED_NAME_SUFFIX = ' (multi-tool)';

/** "<name> (multi-tool)", the name shortened (never the suffix) so the whole fits the name limit. */
function convertedName(name: string): string {
  const room = NAME_LENGTH_MAXIMUM - CONVERTED_NAME_SUFFIX.length;
  // Counted in code points, as the name schema's maxLength counts, so a cut never splits a surrogate pair.
  const characters = Array.from(name);
  const kept = characters.length > room ? characters.slice(0, room).join('').trimEnd() : name;
  return `${kept}${CONVERTED_NAME_SUFFIX}`;
}

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

/** What `POST /api/assistants/import?dry_run=true` answers: the assistant as it would be created, and what stands in its way. */
export interface ImportPreview {
  assistant: {
    name: string;
    description: string;
    assistant_type: 'classic' | 'multi_tool';
    is_orchestrator: boolean;
    system_prompt: string;
    prompt_template: string;
    metadata: AssistantMetadata;
    rag_collections: string[];
    rag_top_k: number;
  };
  problems: ImportProblem[];
}

export class AssistantService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly registries: Registries,
    private readonly referenceReaders: ReferenceReaders,
  ) {}

  /** The one path metadata takes into the store: normalised, then checked against the installed plugins. */
  private storableMetadata(value: unknown): AssistantMetadata {
    return requireInstalledPlugins(normalizeMetadata(value), this.registries);
  }

  /** The identity an assistant's tools are checked as: its stored owner, as the completion service runs them. */
  private async ownerIdentity(record: AssistantRecord): Promise<Identity> {
    const owner = await findUserById(this.db, record.owner_id);
    if (!owner) throw new AppError('internal_error', `The owner of assistant ${record.id} does not exist.`);
    return identityOf(owner, 'assistant_owner', 0);
  }

  /**
   * Throws 400 `invalid_metadata` (param: the first refused `metadata.tools[i].assistant_id`,
   * details.errors: every one) unless the owner may use every enabled assistant tool's target.
   * `assistantId` is undefined for an assistant not stored yet.
   */
  private async requireUsableTargets(metadata: AssistantMetadata, owner: Identity, assistantId: number | undefined): Promise<void> {
    const problems: FieldProblem[] = [];
    for (const { index, assistantId: targetId } of assistantToolTargets(metadata)) {
      const refusal = await this.targetRefusal(owner, targetId, assistantId);
      if (refusal === undefined) continue;
      const path = `metadata.tools[${index}].assistant_id`;
      problems.push({ path, message: targetRefusalMessage(path, targetId, refusal, owner) });
    }
    const first = problems[0];
    if (first) throw new AppError('invalid_metadata', first.message, { param: first.path, details: { errors: problems } });
  }

  private async targetRefusal(
    owner: Identity,
    targetId: number,
    assistantId: number | undefined,
  ): Promise<AssistantToolRefusal | undefined> {
    // An assistant not stored yet has no id, so no target can be itself.
    const orchestratorId = assistantId ?? 0;
    const record = await findAssistant(this.db, targetId, owner.userId);
    const facts =
      record === undefined
        ? undefined
        : { ...assistantFacts(record), id: record.id, orchestrator: isOrchestrator(JSON.parse(record.metadata) as AssistantMetadata) };
    return decideAssistantTool(owner, facts, orchestratorId);
  }

  private async load(context: CallContext, id: number, action: AssistantAction): Promise<AssistantRecord> {
    const record = await findAssistant(this.db, id, context.identity.userId);
    if (!record) throw new AppError('not_found', 'Assistant not found.');
    requireAssistantAction(context.identity, assistantFacts(record), action);
    return record;
  }

  private async reload(context: CallContext, id: number): Promise<AssistantSummaryView | AssistantView> {
    const record = await findAssistant(this.db, id, context.identity.userId);
    return assistantView(context.identity, record!);
  }

  private audit(
    context: CallContext,
    record: { id: number; organization_id: number },
    action: string,
    details?: AuditEntry['details'],
  ): AuditEntry {
    return auditEntryOf(context, { type: 'assistant', id: record.id, organizationId: record.organization_id }, action, details);
  }

  private async insert(
    context: CallContext,
    fields: ImportedAssistant,
    auditAction: string,
    auditDetails?: AuditEntry['details'],
  ): Promise<AssistantView> {
    requireAssistantCreation(context.identity);
    const timestamp = nowTimestamp();
    const organizationId = context.identity.organizationId;
    const id = await this.db.transaction().execute(async (transaction) => {
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
        this.audit(context, { id: insertedId, organization_id: organizationId }, auditAction, auditDetails),
      );
      return insertedId;
    });
    return (await this.reload(context, id)) as AssistantView;
  }

  async create(context: CallContext, input: AssistantInput): Promise<AssistantView> {
    requireAssistantCreation(context.identity);
    const metadata = this.storableMetadata(input.metadata ?? {});
    // The caller will own it, so its assistant tools are checked as the caller.
    await this.requireUsableTargets(metadata, context.identity, undefined);
    return this.insert(
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
      'assistant.create',
    );
  }

  async import(context: CallContext, document: unknown): Promise<AssistantView> {
    requireAssistantCreation(context.identity);
    const fields = fromImportDocument(document);
    let metadata: AssistantMetadata;
    try {
      metadata = requireInstalledPlugins(fields.metadata, this.registries);
      await this.requireUsableTargets(metadata, context.identity, undefined);
    } catch (error) {
      throw asImportMetadataError(document, error);
    }
    return this.insert(context, { ...fields, metadata }, 'assistant.import');
  }

  /**
   * Dry run of `import`: reads the document as import would (an unreadable one is refused the
   * same way), then reports instead of refusing what import's checks would refuse (blocking
   * problems) and the knowledge bases, files and rubrics the caller cannot reach. Writes nothing.
   */
  async previewImport(context: CallContext, document: unknown): Promise<ImportPreview> {
    requireAssistantCreation(context.identity);
    const fields = fromImportDocument(document);
    const problems: ImportProblem[] = [];
    try {
      const metadata = requireInstalledPlugins(fields.metadata, this.registries);
      await this.requireUsableTargets(metadata, context.identity, undefined);
    } catch (error) {
      const named = asImportMetadataError(document, error);
      if (!(named instanceof AppError) || named.status >= 500) throw named;
      problems.push(...blockingProblemsOf(named));
    }
    problems.push(...(await missingReferences(context.identity, fields.metadata, fields.ragCollections, this.referenceReaders)));
    return {
      assistant: {
        name: fields.name,
        description: fields.description,
        assistant_type: assistantTypeOf(fields.metadata),
        is_orchestrator: isOrchestrator(fields.metadata),
        system_prompt: fields.systemPrompt,
        prompt_template: fields.promptTemplate,
        metadata: fields.metadata,
        rag_collections: fields.ragCollections,
        rag_top_k: fields.ragTopK,
      },
      problems,
    };
  }

  /** The conversion of a stored classic assistant, checked against the plugins as any save is; nothing is written. */
  private async conversionOf(context: CallContext, id: number) {
    const record = await findAssistant(this.db, id, context.identity.userId);
    if (!record) throw new AppError('not_found', 'Assistant not found.');
    requireAssistantConversion(context.identity, assistantFacts(record));
    const findTool = (name: string): ConvertibleTool | undefined => {
      const definition = this.registries.tools.get(name);
      if (!definition) return undefined;
      return { name: definition.name, placeholder: definition.placeholder, runsBeforehand: definition.provide !== undefined };
    };
    const conversion = convertClassicAssistant(snapshotOf(record), findTool, record.owner_email);
    return { record, conversion: { ...conversion, metadata: this.convertedMetadata(conversion.metadata) } };
  }

  /** A classic assistant may hold what its tool would refuse (a simple_rag without collections); the conversion then names it. */
  private convertedMetadata(metadata: AssistantMetadata): AssistantMetadata {
    try {
      return this.storableMetadata(metadata);
    } catch (error) {
      if (!(error instanceof AppError) || error.code !== 'invalid_metadata') throw error;
      throw new AppError('assistant_not_convertible', `The converted assistant would be refused: ${error.message}`, {
        details: error.details,
      });
    }
  }

  /** Dry run of a classic → multi-tool conversion (DESIGN §1): what `convert` would create. */
  async previewConversion(context: CallContext, id: number): Promise<ConversionPreview> {
    const { conversion } = await this.conversionOf(context, id);
    return { metadata: conversion.metadata, prompt_template: conversion.promptTemplate, log: conversion.log };
  }

  /**
   * Creates a new multi-tool assistant from a classic one, owned by the caller and named
   * "<name> (multi-tool)"; the classic assistant is left exactly as it was. Audited on the new
   * assistant as `assistant.convert`, with the classic assistant's id.
   */
  async convert(context: CallContext, id: number): Promise<AssistantView> {
    const { record, conversion } = await this.conversionOf(context, id);
    return this.insert(
      context,
      {
        name: convertedName(record.name),
        description: record.description,
        systemPrompt: record.system_prompt,
        promptTemplate: conversion.promptTemplate,
        metadata: conversion.metadata,
        ragCollections: splitCollections(record.rag_collections),
        ragTopK: record.rag_top_k,
      },
      'assistant.convert',
      { converted_from: record.id },
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
    return assistantView(context.identity, await this.load(context, id, 'view'));
  }

  async update(context: CallContext, id: number, patch: AssistantPatch): Promise<AssistantSummaryView | AssistantView> {
    const record = await this.load(context, id, 'update');
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
    if (patch.metadata !== undefined) {
      const metadata = this.storableMetadata(patch.metadata);
      // Checked as the stored owner, who the tools run as, even when an administrator saves.
      await this.requireUsableTargets(metadata, await this.ownerIdentity(record), record.id);
      changes.metadata = JSON.stringify(metadata);
      changes.assistant_type = assistantTypeOf(metadata);
      changes.orchestrator = toFlag(isOrchestrator(metadata));
    }
    await this.db.transaction().execute(async (transaction) => {
      await updateAssistant(transaction, record, changes);
      await appendAuditEntry(transaction, this.audit(context, record, 'assistant.update', { fields: Object.keys(changes).sort() }));
    });
    return this.reload(context, id);
  }

  /**
   * Every assistant the owner of assistant `id` can see (the list scope of GET /api/assistants,
   * up to TOOL_CANDIDATES_MAXIMUM), and whether it may be one of its assistant tools: available
   * ones first, then the others with the reason. The caller must be allowed to update the assistant.
   */
  async toolCandidates(context: CallContext, id: number): Promise<{ items: ToolCandidateView[]; truncated: boolean }> {
    const record = await this.load(context, id, 'update');
    const owner = await this.ownerIdentity(record);
    const scope = assistantListScope(owner);
    const records: AssistantRecord[] = [];
    let total = 0;
    while (records.length < TOOL_CANDIDATES_MAXIMUM) {
      const limit = Math.min(TOOL_CANDIDATES_PAGE_SIZE, TOOL_CANDIDATES_MAXIMUM - records.length);
      const page = await listAssistants(this.db, scope, owner.userId, {
        limit,
        offset: records.length,
        search: undefined,
        type: undefined,
      });
      records.push(...page.items);
      total = page.total;
      if (page.items.length < limit) break;
    }
    const candidates = records.flatMap((candidate): ToolCandidateView[] => {
      const facts = {
        ...assistantFacts(candidate),
        id: candidate.id,
        orchestrator: isOrchestrator(JSON.parse(candidate.metadata) as AssistantMetadata),
      };
      const refusal = decideAssistantTool(owner, facts, record.id);
      // A listed assistant is live; should one be deleted between the pages, it is simply left out.
      if (refusal === 'not_found') return [];
      const view = { id: candidate.id, name: candidate.name, description: candidate.description, owner: candidate.owner_email };
      return [refusal === undefined ? { ...view, available: true } : { ...view, available: false, reason: refusal }];
    });
    return {
      items: [...candidates.filter((candidate) => candidate.available), ...candidates.filter((candidate) => !candidate.available)],
      truncated: total > records.length,
    };
  }

  async delete(context: CallContext, id: number): Promise<void> {
    const record = await this.load(context, id, 'delete');
    await this.db.transaction().execute(async (transaction) => {
      await updateAssistant(transaction, record, { deleted_at: nowTimestamp() });
      await appendAuditEntry(transaction, this.audit(context, record, 'assistant.delete'));
    });
  }

  async publish(context: CallContext, id: number, published: boolean): Promise<AssistantSummaryView | AssistantView> {
    const record = await this.load(context, id, 'publish');
    await this.db.transaction().execute(async (transaction) => {
      await updateAssistant(transaction, record, { published: toFlag(published), published_at: published ? nowTimestamp() : null });
      await appendAuditEntry(transaction, this.audit(context, record, published ? 'assistant.publish' : 'assistant.unpublish'));
    });
    return this.reload(context, id);
  }

  async getShares(context: CallContext, id: number): Promise<{ user_emails: string[] }> {
    await this.load(context, id, 'share');
    return { user_emails: (await listShares(this.db, id)).map((share) => share.email) };
  }

  async putShares(context: CallContext, id: number, userEmails: string[]): Promise<{ user_emails: string[] }> {
    const record = await this.load(context, id, 'share');
    const emails = [...new Set(userEmails.map((email) => email.trim().toLowerCase()))];
    const users = await findUsersByEmails(this.db, emails);
    const unknown = emails.filter((email) => !users.some((user) => user.email === email));
    if (unknown.length > 0) {
      throw new AppError('unknown_users', `No user has the email ${unknown.join(', ')}.`, {
        param: 'user_emails',
        details: { unknown_emails: unknown },
      });
    }
    const outsiders = users.filter((user) => user.organization_id !== record.organization_id).map((user) => user.email);
    if (outsiders.length > 0) {
      throw new AppError(
        'invalid_body',
        `Assistants can only be shared within their organization: ${outsiders.join(', ')} is not a member.`,
        {
          param: 'user_emails',
        },
      );
    }
    // Sharing with the owner is a no-op, not an error: a client may send back the whole member list.
    const userIds = users.filter((user) => user.id !== record.owner_id).map((user) => user.id);
    await this.db.transaction().execute(async (transaction) => {
      await replaceShares(transaction, id, userIds, context.identity.userId);
      await appendAuditEntry(transaction, this.audit(context, record, 'assistant.share', { user_ids: userIds }));
    });
    return { user_emails: (await listShares(this.db, id)).map((share) => share.email) };
  }

  async export(context: CallContext, id: number): Promise<{ document: Record<string, unknown>; fileName: string }> {
    const record = await this.load(context, id, 'export');
    const document = toExportDocument({
      id: record.id,
      name: record.name,
      description: record.description,
      ownerEmail: record.owner_email,
      systemPrompt: record.system_prompt,
      promptTemplate: record.prompt_template,
      metadata: JSON.parse(record.metadata) as AssistantMetadata,
      ragCollections: splitCollections(record.rag_collections),
      ragTopK: record.rag_top_k,
      published: record.published === 1,
      publishedAt: record.published_at,
      createdAt: record.created_at,
      updatedAt: record.updated_at,
    });
    const safeName = trimCharacters(record.name.normalize('NFKD').replace(/[^A-Za-z0-9_.-]+/g, '_'), '_.-').slice(0, 100);
    return { document, fileName: `${safeName || 'assistant'}.json` };
  }
}
