/**
 * Images the `banana_img` connector generates, kept as the requester's files
 * (docs/image-generation.md): stored like uploads (same blob storage, same rows, same storage
 * quota), listed among the requester's files, served back at `/api/files/{id}/content` under the
 * files' permission rule, and deleted with the web chat they were made in (migration 0090).
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { requireFileAction } from '../auth/permissions.js';
import type { BlobStorage } from '../blobs/blob-storage.js';
import { AppError } from '../errors/app-error.js';
import type { OrganizationLimits } from '../organizations/organization-controls.js';
import { requireStorageRoom } from '../organizations/organization-quotas.js';
import type { GeneratedImage, ImageStore } from '../pipeline/plugin-contract/ports.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { findFileById, insertFile, listLiveImagesOfDeletedChats, markFileDeleted } from '../store/files-repository.js';
import { nowTimestamp, type Database, type FileRow } from '../store/schema.js';
import { FileStorage } from './file-storage.js';

/** The image types kept and served, with the extension each is stored under; nothing else is ever served as a file's content. */
const IMAGE_EXTENSIONS: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

export interface GeneratedImageFilesOptions {
  blobs: BlobStorage;
  /** IMAGE_MAX_BYTES. */
  bytesMaximum: number;
  /** IMAGE_TIMEOUT_MS. */
  timeoutMilliseconds: number;
  /** The organization's limits: `storage_gb` refuses an image past it, as it refuses an upload. */
  limitsFor: (organizationId: number) => Promise<OrganizationLimits>;
}

/** A stored image as the content route sends it. */
export interface ImageContent {
  contentType: string;
  sizeBytes: number;
  bytes: AsyncIterable<Uint8Array>;
}

/** The same-origin URL an image file is served at. */
export function imageContentUrl(fileId: number): string {
  return `/api/files/${fileId}/content`;
}

function oversizedImageError(bytesMaximum: number): AppError {
  return new AppError('image_too_large', `The generated image is larger than the limit of ${bytesMaximum} bytes (IMAGE_MAX_BYTES).`, {
    details: { max_bytes: bytesMaximum },
  });
}

async function* once(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

export class GeneratedImageFiles {
  private readonly storage: FileStorage;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly options: GeneratedImageFilesOptions,
  ) {
    this.storage = new FileStorage(options.blobs);
  }

  /** The ImageStore a run's image connector keeps images in: the requester's files, tied to `chatId` when the run is a web chat's. */
  storeFor(context: CallContext, chatId: number | undefined): ImageStore {
    return {
      bytesMaximum: this.options.bytesMaximum,
      timeoutMilliseconds: this.options.timeoutMilliseconds,
      save: async (image) => ({ url: imageContentUrl((await this.save(context, image, chatId)).id) }),
    };
  }

  /** Keeps one image as the requester's file, audited as `file.generate`. */
  async save(context: CallContext, image: GeneratedImage, chatId: number | undefined): Promise<FileRow> {
    const extension = IMAGE_EXTENSIONS[image.mimeType];
    if (extension === undefined) throw new AppError('upstream_error', 'The image provider sent an image of a type Merino does not keep.');
    if (image.bytes.byteLength > this.options.bytesMaximum) throw oversizedImageError(this.options.bytesMaximum);
    const { userId: ownerId, organizationId } = context.identity;
    const limits = await this.options.limitsFor(organizationId);
    await requireStorageRoom(this.db, { organizationId, addedBytes: image.bytes.byteLength, limits });
    const stored = await this.storage.store(ownerId, once(image.bytes), { bytesMaximum: this.options.bytesMaximum, extension });
    // A random name: images never collide with each other or with an upload's name.
    const name = `image-${randomBytes(6).toString('hex')}.${extension}`;
    try {
      return await this.db.transaction().execute(async (transaction) => {
        const row = await insertFile(transaction, {
          owner_id: ownerId,
          organization_id: organizationId,
          file_path: `${ownerId}/${name}`,
          stored_name: stored.storedName,
          original_name: name,
          content_type: image.mimeType,
          size_bytes: stored.sizeBytes,
          sha256: stored.sha256,
          created_at: nowTimestamp(),
          deleted_at: null,
          chat_id: chatId ?? null,
        });
        await appendAuditEntry(transaction, {
          actorUserId: ownerId,
          organizationId,
          action: 'file.generate',
          targetType: 'file',
          targetId: row.id,
          details: { content_type: row.content_type, size_bytes: row.size_bytes },
          requestId: context.requestId,
        });
        return row;
      });
    } catch (error) {
      await this.storage.remove(ownerId, stored.storedName).catch(() => undefined);
      throw error;
    }
  }

  /** An image file's bytes for whoever may read the file (its owner, their organization's admins); 404 for anyone else and for files that are not images. */
  async content(context: CallContext, id: number): Promise<ImageContent> {
    const row = await findFileById(this.db, id);
    if (!row) throw new AppError('not_found', 'File not found.');
    requireFileAction(
      context.identity,
      { ownerId: row.owner_id, organizationId: row.organization_id, deleted: row.deleted_at !== null },
      'read',
    );
    // Only images are served as they are: a text or HTML upload must never render as a page of this origin.
    if (IMAGE_EXTENSIONS[row.content_type] === undefined) throw new AppError('not_found', 'File not found.');
    const bytes = await this.storage.open(row.owner_id, row.stored_name);
    if (bytes === undefined) throw new AppError('not_found', 'File not found: its contents cannot be read.');
    return { contentType: row.content_type, sizeBytes: row.size_bytes, bytes };
  }

  /** Deletes the images of chats that no longer exist, rows and bytes; run after chats are deleted. Returns how many. */
  async deleteImagesOfDeletedChats(): Promise<number> {
    let deleted = 0;
    for (const row of await listLiveImagesOfDeletedChats(this.db)) {
      if (!(await markFileDeleted(this.db, row.id, nowTimestamp()))) continue;
      await this.storage.remove(row.owner_id, row.stored_name).catch(() => undefined);
      deleted += 1;
    }
    return deleted;
  }
}
