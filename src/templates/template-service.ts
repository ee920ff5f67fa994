/**
 * The template library (docs/templates.md): prompt and rubric templates, personal, shared with an
 * organization or system-wide; list with filters, read, create, edit, delete, duplicate (always
 * into the caller's own personal copy), and save an assistant or a rubric as a template. Every
 * method asks the permission module first; every write records its audit entry in the same
 * transaction.
 */
import type { Kysely } from 'kysely';
import { loadAssistant } from '../assistants/assistant-records.js';
import { auditEntryOf, type CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import {
  requireTemplateAction,
  requireTemplateWriting,
  templateActions,
  templateListScope,
  type TemplateAction,
  type TemplateFacts,
} from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import { appendAuditEntry, type AuditEntry } from '../store/audit-log-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import {
  deleteTemplate,
  findTemplate,
  insertTemplate,
  listTemplates,
  updateTemplate,
  type TemplateChanges,
  type TemplateRecord,
} from '../store/templates-repository.js';
import {
  normalizedLanguage,
  normalizedTags,
  readTemplateContent,
  rubricContentOf,
  sendsContent,
  type TemplateContent,
  type TemplateKind,
} from './template-content.js';
import {
  TEMPLATE_LIMITS,
  type SaveAsTemplateInput,
  type TemplateInput,
  type TemplateListInput,
  type TemplatePatch,
  type TemplateSummaryView,
  type TemplateView,
} from './template-schemas.js';

/** A rubric the caller may read, as LAMB's rubric JSON (the rubrics service's export): how "save as template" reaches rubrics. */
export type RubricSource = (context: CallContext, rubricId: string, organizationId?: number) => Promise<object>;

const COPY_SUFFIX = ' (copy)';

/** "<name> (copy)", the name shortened (never the suffix) so the whole fits the name limit; counted in code points. */
function copyName(name: string): string {
  const room = TEMPLATE_LIMITS.nameLength - COPY_SUFFIX.length;
  const characters = Array.from(name);
  const kept = characters.length > room ? characters.slice(0, room).join('').trimEnd() : name;
  return `${kept}${COPY_SUFFIX}`;
}

/** A name or description taken from a source, cut to the template's limit in code points. */
function fitted(text: string, limit: number): string {
  const characters = Array.from(text);
  return characters.length > limit ? characters.slice(0, limit).join('') : text;
}

function factsOf(record: TemplateRecord): TemplateFacts {
  return { ownerId: record.owner_id, organizationId: record.organization_id, visibility: record.visibility };
}

function contentOf(record: TemplateRecord): TemplateContent {
  return JSON.parse(record.content) as TemplateContent;
}

function summaryView(identity: Identity, record: TemplateRecord): TemplateSummaryView {
  return {
    id: record.id,
    kind: record.kind,
    name: record.name,
    description: record.description,
    tags: record.tags,
    language: record.language,
    visibility: record.visibility,
    owner: record.owner_email,
    organization_id: record.organization_id,
    is_mine: record.owner_id === identity.userId,
    allowed_actions: templateActions(identity, factsOf(record)),
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

function templateView(identity: Identity, record: TemplateRecord): TemplateView {
  return { ...summaryView(identity, record), ...contentOf(record) };
}

/** What an edit changes in the row: only the fields the patch sends, the content read over the current one. */
function changesOf(patch: TemplatePatch, record: TemplateRecord): TemplateChanges {
  const changes: TemplateChanges = {};
  if (patch.name !== undefined) changes.name = patch.name;
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.visibility !== undefined) changes.visibility = patch.visibility;
  if (patch.tags !== undefined) changes.tags = normalizedTags(patch.tags);
  if (patch.language !== undefined) changes.language = normalizedLanguage(patch.language);
  if (sendsContent(patch)) changes.content = JSON.stringify(readTemplateContent(record.kind, patch, contentOf(record)));
  return changes;
}

/** A new template's description: what the caller chose, with the content it holds. */
interface NewTemplateParts {
  kind: TemplateKind;
  name: string;
  description?: string;
  tags?: readonly string[];
  language?: string | null;
  visibility?: TemplateFacts['visibility'];
  content: TemplateContent;
}

export class TemplateService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly rubricSource: RubricSource,
  ) {}

  private async load(identity: Identity, id: number, action: TemplateAction): Promise<TemplateRecord> {
    const record = await findTemplate(this.db, id);
    if (!record) throw new AppError('not_found', 'Template not found.');
    requireTemplateAction(identity, factsOf(record), action);
    return record;
  }

  private audit(context: CallContext, record: { id: number; organization_id: number }, action: string, details?: AuditEntry['details']) {
    return auditEntryOf(context, { type: 'template', id: String(record.id), organizationId: record.organization_id }, action, details);
  }

  /** Writes a new template owned by the caller, in the caller's organization, with its audit entry. */
  private async insert(context: CallContext, parts: NewTemplateParts, auditAction: string, details: AuditEntry['details'] = {}) {
    const visibility = parts.visibility ?? 'personal';
    requireTemplateWriting(context.identity, visibility);
    const timestamp = nowTimestamp();
    const template = {
      kind: parts.kind,
      visibility,
      owner_id: context.identity.userId,
      organization_id: context.identity.organizationId,
      name: parts.name,
      description: parts.description ?? '',
      language: normalizedLanguage(parts.language),
      content: JSON.stringify(parts.content),
      tags: normalizedTags(parts.tags),
      created_at: timestamp,
      updated_at: timestamp,
    };
    const id = await this.db.transaction().execute(async (transaction) => {
      const inserted = await insertTemplate(transaction, template);
      await appendAuditEntry(
        transaction,
        this.audit(context, { id: inserted, organization_id: template.organization_id }, auditAction, {
          kind: template.kind,
          visibility,
          ...details,
        }),
      );
      return inserted;
    });
    return this.get(context, id);
  }

  async create(context: CallContext, input: TemplateInput): Promise<TemplateView> {
    requireTemplateWriting(context.identity, input.visibility ?? 'personal');
    const content = readTemplateContent(input.kind, input);
    return this.insert(context, { ...input, content }, 'template.create');
  }

  async list(context: CallContext, query: TemplateListInput): Promise<{ items: TemplateSummaryView[]; total: number }> {
    const page = await listTemplates(this.db, templateListScope(context.identity), {
      limit: query.limit,
      offset: query.offset,
      search: query.q,
      kind: query.kind,
      visibility: query.visibility,
      tag: query.tag === undefined ? undefined : normalizedTags([query.tag])[0],
      language: query.language === undefined ? undefined : (normalizedLanguage(query.language) ?? undefined),
    });
    return { items: page.items.map((record) => summaryView(context.identity, record)), total: page.total };
  }

  async get(context: CallContext, id: number): Promise<TemplateView> {
    return templateView(context.identity, await this.load(context.identity, id, 'read'));
  }

  /** Replaces the fields the patch names; the kind never changes, and content fields must be the kind's. */
  async update(context: CallContext, id: number, patch: TemplatePatch): Promise<TemplateView> {
    const record = await this.load(context.identity, id, 'update');
    if (patch.kind !== undefined) throw new AppError('immutable_field', 'The field "kind" cannot be changed.', { param: 'kind' });
    if (patch.visibility !== undefined) requireTemplateWriting(context.identity, patch.visibility);
    const changes = changesOf(patch, record);
    const fields = Object.keys(patch).sort();
    await this.db.transaction().execute(async (transaction) => {
      if (!(await updateTemplate(transaction, record, changes))) throw new AppError('not_found', 'Template not found.');
      await appendAuditEntry(transaction, this.audit(context, record, 'template.update', { fields }));
    });
    return this.get(context, id);
  }

  async delete(context: CallContext, id: number): Promise<void> {
    const record = await this.load(context.identity, id, 'delete');
    await this.db.transaction().execute(async (transaction) => {
      if (!(await deleteTemplate(transaction, id))) throw new AppError('not_found', 'Template not found.');
      await appendAuditEntry(
        transaction,
        this.audit(context, record, 'template.delete', { kind: record.kind, visibility: record.visibility }),
      );
    });
  }

  /** The caller's own personal copy of a template they may read, named "<name> (copy)". */
  async duplicate(context: CallContext, id: number): Promise<TemplateView> {
    const source = await this.load(context.identity, id, 'duplicate');
    return this.insert(
      context,
      {
        kind: source.kind,
        name: copyName(source.name),
        description: source.description,
        tags: source.tags,
        language: source.language,
        content: contentOf(source),
      },
      'template.create',
      { duplicated_from: source.id },
    );
  }

  /** A prompt template from an assistant whose configuration the caller may see: its system prompt and prompt template. */
  async saveAssistant(context: CallContext, assistantId: number, input: SaveAsTemplateInput): Promise<TemplateView> {
    requireTemplateWriting(context.identity, input.visibility ?? 'personal');
    const assistant = await loadAssistant(this.db, context, assistantId, 'view_configuration');
    const content = readTemplateContent('prompt', { system_prompt: assistant.system_prompt, prompt_template: assistant.prompt_template });
    return this.insert(
      context,
      {
        ...input,
        kind: 'prompt',
        name: input.name ?? fitted(assistant.name, TEMPLATE_LIMITS.nameLength),
        description: input.description ?? fitted(assistant.description, TEMPLATE_LIMITS.descriptionLength),
        content,
      },
      'template.create',
      { from_assistant: assistantId },
    );
  }

  /** A rubric template from a rubric the caller may read: its content without its rubricId. */
  async saveRubric(context: CallContext, rubricId: string, input: SaveAsTemplateInput, organizationId?: number): Promise<TemplateView> {
    requireTemplateWriting(context.identity, input.visibility ?? 'personal');
    const rubric = await this.rubricSource(context, rubricId, organizationId);
    const content = { rubric: rubricContentOf(rubric) };
    return this.insert(
      context,
      {
        ...input,
        kind: 'rubric',
        name: input.name ?? fitted(content.rubric.title, TEMPLATE_LIMITS.nameLength),
        description: input.description ?? fitted(content.rubric.description, TEMPLATE_LIMITS.descriptionLength),
        content,
      },
      'template.create',
      { from_rubric: rubricId },
    );
  }
}
