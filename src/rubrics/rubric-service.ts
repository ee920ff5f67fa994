/**
 * Rubrics: create, list, read, update, soft-delete, import and export, and a RubricReader bound
 * to an assistant owner for the rubric_rag tool. Every method asks the permission module first;
 * every write records its audit entry in the same transaction. Documents are LAMB's rubric JSON,
 * read and completed by rubric-document.ts.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import {
  requireRubricAction,
  requireRubricCreation,
  rubricListScope,
  rubricNamespace,
  type RubricAction,
  type RubricFacts,
} from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { RubricReader } from '../pipeline/plugin-contract/ports.js';
import { appendAuditEntry, type AuditEntry } from '../store/audit-log-repository.js';
import { auditEntryOf } from '../auth/call-context.js';
import { isUniqueViolation } from '../store/files-repository.js';
import {
  findRubric,
  findRubricsInAnyOrganization,
  insertRubric,
  listRubrics,
  rubricIdExists,
  updateRubric,
  type RubricRecord,
} from '../store/rubrics-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import { trimCharacters } from '../text-trimming/trim-characters.js';
import {
  completeRubric,
  readRubricDraft,
  RUBRIC_VISIBILITIES,
  throwProblems,
  type RubricDocument,
  type RubricDraft,
  type RubricVisibility,
} from './rubric-document.js';
import type { RubricListInput } from './rubric-list-schemas.js';
import type { RubricPreview, RubricSummaryView } from './rubric-view-schemas.js';
import { evaluationJson, evaluationMarkdown, rubricToMarkdown } from './rubric-rendering.js';

/** Who owns a rubric and who may see it, as every view of it shows. */
interface RubricOwnership {
  visibility: RubricVisibility;
  owner: string;
  organization_id: number;
  is_mine: boolean;
  created_at: string;
  updated_at: string;
}

/**
 * A rubric as the API shows it: LAMB's rubric JSON at the top level, plus its ownership. Written
 * here rather than derived from rubricViewSchema, whose criteria and metadata are open objects;
 * test/rubric-views-match-their-response-schemas.test.ts pins it to that schema.
 */
export type RubricView = RubricDocument & RubricOwnership;

export type RubricExport =
  { format: 'json'; fileName: string; document: RubricDocument } | { format: 'markdown'; fileName: string; markdown: string };

/** The rubricId a preview shows when the draft has none yet (a new rubric). */
const PREVIEW_RUBRIC_ID = 'unsaved-rubric';

/** Fields of a view a client may send back in a PATCH but never change. */
const IMMUTABLE_FIELDS = ['owner', 'organization_id', 'is_mine', 'created_at', 'updated_at'] as const;
const VISIBILITY_FIELD = 'visibility';

function documentOf(record: RubricRecord): RubricDocument {
  return JSON.parse(record.rubric_data) as RubricDocument;
}

function rubricFacts(record: RubricRecord): RubricFacts {
  return {
    ownerId: record.owner_id,
    organizationId: record.organization_id,
    visibility: record.visibility,
    deleted: record.deleted_at !== null,
  };
}

function ownership(identity: Identity, record: RubricRecord) {
  return {
    visibility: record.visibility,
    owner: record.owner_email,
    organization_id: record.organization_id,
    is_mine: record.owner_id === identity.userId,
    created_at: record.created_at,
    updated_at: record.updated_at,
  };
}

function rubricView(identity: Identity, record: RubricRecord): RubricView {
  return { ...documentOf(record), ...ownership(identity, record) };
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function summaryView(identity: Identity, record: RubricRecord): RubricSummaryView {
  const document = documentOf(record);
  return {
    rubricId: document.rubricId,
    title: document.title,
    description: document.description,
    subject: textOrNull(document.metadata.subject),
    gradeLevel: textOrNull(document.metadata.gradeLevel),
    scoringType: document.scoringType,
    maxScore: document.maxScore,
    criteria_count: document.criteria.length,
    ...ownership(identity, record),
  };
}

function readVisibility(value: unknown, fallback: RubricVisibility): RubricVisibility {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !RUBRIC_VISIBILITIES.includes(value as RubricVisibility)) {
    throwProblems([{ path: VISIBILITY_FIELD, message: `"${VISIBILITY_FIELD}" must be one of ${RUBRIC_VISIBILITIES.join(', ')}.` }]);
  }
  return value as RubricVisibility;
}

/** A LAMB rubric row (`{rubric_data: {...} | "<json>", ...}`) or the rubric JSON itself. */
function importedDocument(body: Record<string, unknown>): { value: unknown; root: string } {
  const data = body.rubric_data;
  if (data === undefined) return { value: body, root: '' };
  if (typeof data !== 'string') return { value: data, root: 'rubric_data' };
  try {
    return { value: JSON.parse(data), root: 'rubric_data' };
  } catch {
    throw new AppError('invalid_body', '"rubric_data" is a string that is not valid JSON.', { param: 'rubric_data' });
  }
}

function fileNameOf(title: string, extension: string): string {
  const safe = trimCharacters(title.normalize('NFKD').replace(/[^A-Za-z0-9_.-]+/g, '-'), '-_.')
    .toLowerCase()
    .slice(0, 100);
  return `${safe || 'rubric'}.${extension}`;
}

export class RubricService {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * The rubric a caller names, in their organization or the one they name (rubric ids are unique
   * per organization; see rubricNamespace), checked for `action`.
   */
  private async load(identity: Identity, rubricId: string, action: RubricAction, organizationId?: number): Promise<RubricRecord> {
    const namespace = rubricNamespace(identity, organizationId);
    let record = await findRubric(this.db, namespace.organizationId, rubricId);
    if (!record && namespace.searchEveryOrganization) {
      const candidates = await findRubricsInAnyOrganization(this.db, rubricId);
      if (candidates.length > 1) {
        throw new AppError('ambiguous_rubric', undefined, { param: 'organization_id' });
      }
      record = candidates[0];
    }
    if (!record) throw new AppError('not_found', 'Rubric not found.');
    requireRubricAction(identity, rubricFacts(record), action);
    return record;
  }

  private audit(
    context: CallContext,
    record: { rubric_id: string; organization_id: number },
    action: string,
    details?: AuditEntry['details'],
  ): AuditEntry {
    return auditEntryOf(context, { type: 'rubric', id: record.rubric_id, organizationId: record.organization_id }, action, details);
  }

  private async insert(context: CallContext, draft: RubricDraft, visibility: RubricVisibility, auditAction: string): Promise<RubricView> {
    const taken = () =>
      new AppError(
        'rubric_id_taken',
        `A rubric with the rubricId "${draft.rubricId}" already exists; choose another or leave rubricId out.`,
        { param: 'rubricId' },
      );
    // Only the caller's own organization is asked: another organization's ids neither collide nor show.
    if (draft.rubricId !== undefined && (await rubricIdExists(this.db, context.identity.organizationId, draft.rubricId))) throw taken();
    const timestamp = nowTimestamp();
    const document = completeRubric(draft, { createdAt: timestamp, modifiedAt: timestamp });
    const row = {
      rubric_id: document.rubricId,
      owner_id: context.identity.userId,
      organization_id: context.identity.organizationId,
      title: document.title,
      description: document.description,
      visibility,
      rubric_data: JSON.stringify(document),
      created_at: timestamp,
      updated_at: timestamp,
      deleted_at: null,
    };
    try {
      await this.db.transaction().execute(async (transaction) => {
        await insertRubric(transaction, row);
        await appendAuditEntry(transaction, this.audit(context, row, auditAction, { visibility }));
      });
    } catch (error) {
      // Two creations racing for one chosen id: the loser hears what a later caller would.
      if (isUniqueViolation(error)) throw taken();
      throw error;
    }
    return this.get(context, document.rubricId, row.organization_id);
  }

  async create(context: CallContext, body: Record<string, unknown>): Promise<RubricView> {
    requireRubricCreation(context.identity);
    const draft = readRubricDraft(body, { strict: true, extraFields: [VISIBILITY_FIELD] });
    return this.insert(context, draft, readVisibility(body[VISIBILITY_FIELD], 'private'), 'rubric.create');
  }

  /**
   * Imports LAMB's rubric JSON (or a LAMB rubric row holding it in `rubric_data`) as a new private
   * rubric, as LAMB does: always under a new rubricId, with fresh timestamps; fields a rubric does
   * not have are dropped, so any export can be imported.
   */
  async import(context: CallContext, body: Record<string, unknown>): Promise<RubricView> {
    requireRubricCreation(context.identity);
    const { value, root } = importedDocument(body);
    const { rubricId: _ignored, ...draft } = readRubricDraft(value, { strict: false, root });
    return this.insert(context, draft, 'private', 'rubric.import');
  }

  async list(context: CallContext, query: RubricListInput): Promise<{ items: RubricSummaryView[]; total: number }> {
    const page = await listRubrics(this.db, rubricListScope(context.identity, query.scope), {
      limit: query.limit,
      offset: query.offset,
      search: query.q,
    });
    return { items: page.items.map((record) => summaryView(context.identity, record)), total: page.total };
  }

  async get(context: CallContext, rubricId: string, organizationId?: number): Promise<RubricView> {
    return rubricView(context.identity, await this.load(context.identity, rubricId, 'read', organizationId));
  }

  /**
   * Replaces the fields the body names (title, description, metadata, criteria, scoringType,
   * maxScore, visibility) and checks the whole result by LAMB's rules again. rubricId and
   * metadata.createdAt never change; metadata.modifiedAt becomes now.
   */
  async update(context: CallContext, rubricId: string, patch: Record<string, unknown>, organizationId?: number): Promise<RubricView> {
    const record = await this.load(context.identity, rubricId, 'update', organizationId);
    for (const field of IMMUTABLE_FIELDS) {
      if (field in patch) throw new AppError('immutable_field', `The field "${field}" cannot be changed.`, { param: field });
    }
    if (patch.rubricId !== undefined && patch.rubricId !== rubricId) {
      throw new AppError('immutable_field', 'The field "rubricId" cannot be changed; import the rubric to give it a new id.', {
        param: 'rubricId',
      });
    }
    const current = documentOf(record);
    const { rubricId: _same, [VISIBILITY_FIELD]: visibilityValue, ...fields } = patch;
    const { rubricId: _current, ...currentFields } = current;
    const draft = readRubricDraft({ ...currentFields, ...fields }, { strict: true });
    const visibility = readVisibility(visibilityValue, record.visibility);
    const document = completeRubric(draft, { rubricId, createdAt: current.metadata.createdAt, modifiedAt: nowTimestamp() });
    const changed = [...Object.keys(fields), ...(visibilityValue === undefined ? [] : [VISIBILITY_FIELD])].sort();
    await this.db.transaction().execute(async (transaction) => {
      const updated = await updateRubric(transaction, record, {
        title: document.title,
        description: document.description,
        visibility,
        rubric_data: JSON.stringify(document),
      });
      // Deleted between the read and this write: as if it had been gone before.
      if (!updated) throw new AppError('not_found', 'Rubric not found.');
      await appendAuditEntry(transaction, this.audit(context, record, 'rubric.update', { fields: changed }));
    });
    return this.get(context, rubricId, record.organization_id);
  }

  async delete(context: CallContext, rubricId: string, organizationId?: number): Promise<void> {
    const record = await this.load(context.identity, rubricId, 'delete', organizationId);
    await this.db.transaction().execute(async (transaction) => {
      if (!(await updateRubric(transaction, record, { deleted_at: nowTimestamp() }))) throw new AppError('not_found', 'Rubric not found.');
      await appendAuditEntry(transaction, this.audit(context, record, 'rubric.delete'));
    });
  }

  async export(context: CallContext, rubricId: string, format: 'json' | 'markdown', organizationId?: number): Promise<RubricExport> {
    const record = await this.load(context.identity, rubricId, 'export', organizationId);
    const document = documentOf(record);
    if (format === 'markdown') return { format, fileName: fileNameOf(document.title, 'md'), markdown: rubricToMarkdown(document) };
    return { format, fileName: fileNameOf(document.title, 'json'), document };
  }

  /**
   * The evaluation document rubric_rag would put in `{rubric}` for a rubric not saved yet (the
   * editor's live preview): read by the same rules as create and rendered by the same functions
   * the tool uses, so the preview cannot drift from what a model receives. Nothing is stored.
   */
  preview(context: CallContext, body: Record<string, unknown>, format: 'markdown' | 'json'): RubricPreview {
    requireRubricCreation(context.identity);
    const draft = readRubricDraft(body, { strict: true, extraFields: [VISIBILITY_FIELD] });
    readVisibility(body[VISIBILITY_FIELD], 'private');
    const timestamp = nowTimestamp();
    const rubric = completeRubric(draft, { rubricId: PREVIEW_RUBRIC_ID, createdAt: timestamp, modifiedAt: timestamp });
    return { format, document: format === 'json' ? evaluationJson(rubric) : evaluationMarkdown(rubric) };
  }

  /** A RubricReader that reads with `owner`'s permissions: the assistant owner's, for the rubric_rag tool. */
  readerFor(owner: Identity): RubricReader {
    return {
      // Always the owner's own organization: an assistant never reaches into another one's ids.
      evaluation: async (rubricId, format) => {
        const rubric = documentOf(await this.load(owner, rubricId, 'read', owner.organizationId));
        const document = format === 'json' ? evaluationJson(rubric) : evaluationMarkdown(rubric);
        return { rubricId: rubric.rubricId, title: rubric.title, criterionCount: rubric.criteria.length, document };
      },
    };
  }
}
