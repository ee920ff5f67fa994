/**
 * Files users upload for the single-file tool: upload, list, delete, and a FileReader bound to an
 * assistant owner for the pipeline. Every method asks the permission module first; uploads and
 * deletions write their audit entry in the same transaction as the row. The bytes are in place
 * on disk before the row that names them is written, and removed again when that write fails,
 * so a live row never points at missing or half-written bytes.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import { decideFile, fileListScope, requireFileAction, requireFileUpload, type FileFacts } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { OrganizationLimits } from '../organizations/organization-controls.js';
import { requireStorageRoom } from '../organizations/organization-quotas.js';
import type { FileReader, FileText } from '../pipeline/plugin-contract/ports.js';
import { appendAuditEntry, type AuditEntry } from '../store/audit-log-repository.js';
import {
  findFileById,
  findLiveFileByPath,
  insertFile,
  isUniqueViolation,
  listLiveFilePaths,
  listLiveFiles,
  liveStoredNames,
  markFileDeleted,
} from '../store/files-repository.js';
import { nowTimestamp, type Database, type FileRow } from '../store/schema.js';
import { acceptedFileType, FileContentInspector } from './file-content.js';
import { displayFileName, parseFilePath, sanitizeFileName, withCollisionSuffix } from './file-paths.js';
import type { BlobStorage } from '../blobs/blob-storage.js';
import { FileStorage, type StoredBytes } from './file-storage.js';
import { FileTextCache } from './file-text-cache.js';
import type { FileTextView, FileUsageView, FileView } from './file-schemas.js';
import { assistantIdsUsingFile, fileUsageOf } from './file-usage.js';
import type { PageBounds } from '../validation/page-query-schema.js';

export interface FileServiceOptions {
  /** Where the bytes live: local disk, the database or S3 (docs/blob-storage.md). */
  blobs: BlobStorage;
  bytesMaximum: number;
  /** Characters of file text kept in memory for the single-file tool (FILE_TEXT_CACHE_CHARACTERS); 0 keeps none. */
  textCacheCharactersMaximum: number;
  /** Characters of a file the preview shows (FILE_PREVIEW_CHARACTERS). */
  previewCharactersMaximum: number;
  /** The organization's limits: `storage_gb` refuses an upload past it (organization-quotas.ts). */
  limitsFor: (organizationId: number) => Promise<OrganizationLimits>;
}

export interface UploadInput {
  /** The name the client gave the file; only its last segment is used. */
  fileName: string;
  /** What the client declared. Not trusted: the type is decided by extension and content. */
  contentType: string;
  stream: AsyncIterable<Uint8Array>;
}

/** How often an upload picks a fresh name after losing a race for one to a concurrent upload. */
const NAME_RACE_RETRIES = 5;

function fileView(row: FileRow): FileView {
  return {
    id: row.id,
    file_path: row.file_path,
    name: row.original_name,
    content_type: row.content_type,
    size_bytes: row.size_bytes,
    created_at: row.created_at,
  };
}

function fileFacts(row: FileRow): FileFacts {
  return { ownerId: row.owner_id, organizationId: row.organization_id, deleted: row.deleted_at !== null };
}

function requireCharacterBudget(charactersMaximum: number): void {
  if (!Number.isSafeInteger(charactersMaximum) || charactersMaximum < 0) {
    throw new AppError('invalid_parameter', 'The character budget must be a whole number of 0 or more.', { param: 'max_characters' });
  }
}

export class FileService {
  private readonly storage: FileStorage;
  private readonly bytesMaximum: number;
  private readonly texts: FileTextCache;
  private readonly previewCharactersMaximum: number;
  private readonly limitsFor: FileServiceOptions['limitsFor'];

  constructor(
    private readonly db: Kysely<Database>,
    options: FileServiceOptions,
  ) {
    this.storage = new FileStorage(options.blobs);
    this.bytesMaximum = options.bytesMaximum;
    this.texts = new FileTextCache(options.textCacheCharactersMaximum);
    this.previewCharactersMaximum = options.previewCharactersMaximum;
    this.limitsFor = options.limitsFor;
  }

  async upload(context: CallContext, input: UploadInput): Promise<FileView> {
    requireFileUpload(context.identity);
    const name = sanitizeFileName(input.fileName);
    const type = acceptedFileType(name);
    const ownerId = context.identity.userId;
    const organizationId = context.identity.organizationId;
    const limits = await this.limitsFor(organizationId);
    // A full organization is refused before the bytes stream in; one the upload would fill, once its size is known.
    await requireStorageRoom(this.db, { organizationId, addedBytes: 1, limits });
    const stored = await this.storage.store(
      ownerId,
      input.stream,
      { bytesMaximum: this.bytesMaximum, extension: type.extension },
      new FileContentInspector(type),
    );
    try {
      await requireStorageRoom(this.db, { organizationId, addedBytes: stored.sizeBytes, limits });
      const row = await this.insertRow(context, name, {
        originalName: displayFileName(input.fileName) || name,
        contentType: type.contentType,
        stored,
      });
      return fileView(row);
    } catch (error) {
      await this.storage.remove(ownerId, stored.storedName).catch(() => undefined);
      throw error;
    }
  }

  /** Inserts the row under the first free `file_path`, trying again when a concurrent upload took that name first. */
  private async insertRow(
    context: CallContext,
    name: string,
    file: { originalName: string; contentType: string; stored: StoredBytes },
  ): Promise<FileRow> {
    for (let attempt = 0; ; attempt += 1) {
      const filePath = await this.freeFilePath(context.identity.userId, name);
      try {
        return await this.db.transaction().execute(async (transaction) => {
          const row = await insertFile(transaction, {
            owner_id: context.identity.userId,
            organization_id: context.identity.organizationId,
            file_path: filePath,
            stored_name: file.stored.storedName,
            original_name: file.originalName,
            content_type: file.contentType,
            size_bytes: file.stored.sizeBytes,
            sha256: file.stored.sha256,
            created_at: nowTimestamp(),
            deleted_at: null,
          });
          await appendAuditEntry(transaction, this.audit(context, row, 'file.upload'));
          return row;
        });
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= NAME_RACE_RETRIES) throw error;
      }
    }
  }

  /** `<owner id>/<name>`, or the first of `name-2`, `name-3`, … that none of the owner's live files holds. */
  private async freeFilePath(ownerId: number, name: string): Promise<string> {
    const taken = await listLiveFilePaths(this.db, ownerId);
    for (let attempt = 1; ; attempt += 1) {
      const candidate = `${ownerId}/${withCollisionSuffix(name, attempt)}`;
      if (!taken.has(candidate)) return candidate;
    }
  }

  private audit(context: CallContext, row: FileRow, action: string): AuditEntry {
    return {
      actorUserId: context.identity.userId,
      organizationId: row.organization_id,
      action,
      targetType: 'file',
      targetId: row.id,
      // Identifiers and sizes only: file names are user text and stay out of the audit log.
      details: { content_type: row.content_type, size_bytes: row.size_bytes },
      requestId: context.requestId,
    };
  }

  async list(context: CallContext, page: PageBounds): Promise<{ items: FileView[]; total: number }> {
    const files = await listLiveFiles(this.db, fileListScope(context.identity), page);
    return { items: files.items.map(fileView), total: files.total };
  }

  /** The assistants whose single-file tools name file `id` (file-usage.ts); 404 unless the caller may read the file. */
  async usage(context: CallContext, id: number): Promise<FileUsageView> {
    const row = await findFileById(this.db, id);
    if (!row) throw new AppError('not_found', 'File not found.');
    requireFileAction(context.identity, fileFacts(row), 'read');
    return fileUsageOf(this.db, context.identity, row.file_path);
  }

  /** The start of file `id`'s text for the files page's preview; 404 unless the caller may read the file. */
  async preview(context: CallContext, id: number): Promise<FileTextView> {
    const row = await findFileById(this.db, id);
    if (!row) throw new AppError('not_found', 'File not found.');
    requireFileAction(context.identity, fileFacts(row), 'read');
    const text = await this.texts.read(row.sha256, this.previewCharactersMaximum, () =>
      this.storage.readTextPrefix(row.owner_id, row.stored_name, this.previewCharactersMaximum),
    );
    if (text === undefined) throw new AppError('not_found', 'File not found: its contents cannot be read.');
    return { text: text.text, truncated: text.truncated };
  }

  /** Deletes file `id`; one that assistants use only with `force` (409 file_in_use otherwise), so a page can warn first. */
  async delete(context: CallContext, id: number, options: { force: boolean } = { force: false }): Promise<void> {
    const row = await findFileById(this.db, id);
    if (!row) throw new AppError('not_found', 'File not found.');
    requireFileAction(context.identity, fileFacts(row), 'delete');
    if (!options.force) await this.requireUnused(row);
    const deleted = await this.db.transaction().execute(async (transaction) => {
      // Only a live row is marked, so of two concurrent deletions exactly one succeeds and is audited.
      if (!(await markFileDeleted(transaction, id, nowTimestamp()))) return false;
      await appendAuditEntry(transaction, this.audit(context, row, 'file.delete'));
      return true;
    });
    if (!deleted) throw new AppError('not_found', 'File not found.');
    await this.storage.remove(row.owner_id, row.stored_name);
  }

  private async requireUnused(row: FileRow): Promise<void> {
    const users = await assistantIdsUsingFile(this.db, row.file_path);
    if (users.length === 0) return;
    throw new AppError(
      'file_in_use',
      `${users.length} assistant(s) use this file in a single-file tool; GET /api/files/${row.id}/usage lists them. Delete with ?force=true to delete it anyway.`,
      { details: { assistant_count: users.length } },
    );
  }

  /**
   * Removes what uploads and deletions cut short by a killed process left in storage: stored
   * bytes no live row names (the process died between writing the bytes and their row, or
   * between marking a file deleted and removing its bytes). Only files written more than
   * `graceMilliseconds` ago are touched, so an upload that another process is running now keeps
   * its bytes. (Unfinished writes are the blob storage's to sweep.) Returns how many it removed.
   */
  async sweepLeftovers(graceMilliseconds: number): Promise<number> {
    const cutoff = Date.now() - graceMilliseconds;
    let removed = 0;
    for (const ownerId of await this.storage.listOwners()) {
      const old = (await this.storage.listStored(ownerId)).filter((entry) => entry.modifiedAt < cutoff).map((entry) => entry.name);
      const live = await liveStoredNames(this.db, ownerId, old);
      for (const name of old) {
        if (live.has(name)) continue;
        await this.storage.remove(ownerId, name);
        removed += 1;
      }
    }
    return removed;
  }

  /** A FileReader that reads with `owner`'s permissions: the assistant owner's, for the single-file tool. */
  readerFor(owner: Identity): FileReader {
    return { readText: (filePath, charactersMaximum) => this.readText(owner, filePath, charactersMaximum) };
  }

  /**
   * Whether `owner` may read the live file at `filePath`, as the single-file tool would read it:
   * what an assistant's single-file tool must name when it is saved. A path that is not one we
   * hand out, a missing file and another owner's file all answer false alike.
   */
  async mayRead(owner: Identity, filePath: string): Promise<boolean> {
    let parsed: ReturnType<typeof parseFilePath>;
    try {
      parsed = parseFilePath(filePath);
    } catch {
      return false;
    }
    const row = await findLiveFileByPath(this.db, parsed.filePath);
    if (!row || row.owner_id !== parsed.ownerId) return false;
    return decideFile(owner, fileFacts(row), 'read').allowed;
  }

  private async readText(owner: Identity, filePath: string, charactersMaximum: number): Promise<FileText> {
    requireCharacterBudget(charactersMaximum);
    const parsed = parseFilePath(filePath);
    const subject = `File "${parsed.filePath}"`;
    const row = await findLiveFileByPath(this.db, parsed.filePath);
    // A row whose path names another owner than its owner_id was not written by us: treat it as absent.
    if (!row || row.owner_id !== parsed.ownerId) throw new AppError('not_found', `${subject} not found.`);
    requireFileAction(owner, fileFacts(row), 'read', subject);
    const text = await this.texts.read(row.sha256, charactersMaximum, () =>
      this.storage.readTextPrefix(row.owner_id, row.stored_name, charactersMaximum),
    );
    if (text === undefined) throw new AppError('not_found', `${subject} not found: its contents cannot be read.`);
    return text;
  }
}
