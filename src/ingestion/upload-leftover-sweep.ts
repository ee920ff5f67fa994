/**
 * What a sweep removes after knowledge-base uploads that never finished: documents whose upload
 * lost its process are marked failed with UPLOAD_INTERRUPTED_REASON (their bytes removed, so the
 * teacher uploads again), and upload files nobody will ever name are deleted. Kept apart from the
 * document service, which takes uploads in, because this runs on a timer and at start-up
 * (src/process/crash-leftovers.ts), with no caller to check.
 */
import type { Kysely } from 'kysely';
import type { FileStorage } from '../files/file-storage.js';
import { deleteDocumentText } from '../store/document-texts-repository.js';
import {
  documentIdsWithKeptBytes,
  listUploadsInProgress,
  markUploadInterrupted,
  type UploadInProgress,
} from '../store/document-uploads-repository.js';
import type { Database } from '../store/schema.js';
import { isDeadLocalOwner } from './runner-identity.js';

/** What a teacher reads on a document whose upload a killed or stalled process never finished. */
export const UPLOAD_INTERRUPTED_REASON = 'the upload was interrupted';

/** A stored document's name: its id. Anything else under a stored name is an upload still being staged. */
const DOCUMENT_ID_NAME = /^[1-9][0-9]{0,9}$/;

export interface LeftoverSweepCounts {
  /** Documents whose upload was cut short, now marked failed. */
  documents: number;
  files: number;
}

interface SweptStore {
  db: Kysely<Database>;
  storage: FileStorage;
}

/**
 * Marks failed every upload that is known to be orphaned, and removes the bytes it had stored;
 * then removes temporary and staged upload files and files named by the id of a document that no
 * longer exists (a deletion cut short) or of an interrupted upload. Files are touched only once
 * older than `graceMilliseconds`, since another process's upload in progress keeps writing its
 * file. Returns how many documents it marked and files it removed.
 */
export async function sweepUploadLeftovers(store: SweptStore, graceMilliseconds: number): Promise<LeftoverSweepCounts> {
  const { db, storage } = store;
  const cutoff = Date.now() - graceMilliseconds;
  const documents = await markInterruptedUploads(store, cutoff);
  let files = 0;
  for (const knowledgeBaseId of await storage.listOwners()) {
    const old = (await storage.listStored(knowledgeBaseId)).filter((entry) => entry.modifiedAt < cutoff).map((entry) => entry.name);
    const named = old.filter((name) => DOCUMENT_ID_NAME.test(name)).map(Number);
    const kept = await documentIdsWithKeptBytes(db, knowledgeBaseId, named);
    for (const name of old) {
      if (DOCUMENT_ID_NAME.test(name) && kept.has(Number(name))) continue;
      // A staged upload (random name) is renamed to its document's id within its request; an old one never will be.
      await storage.remove(knowledgeBaseId, name);
      files += 1;
    }
  }
  return { documents, files };
}

async function markInterruptedUploads(store: SweptStore, cutoff: number): Promise<number> {
  const moment = { now: new Date().toISOString(), cutoff: new Date(cutoff).toISOString() };
  let marked = 0;
  for (const upload of await listUploadsInProgress(store.db)) {
    if (!isOrphanedUpload(upload, moment)) continue;
    if (!(await markUploadInterrupted(store.db, upload, UPLOAD_INTERRUPTED_REASON))) continue;
    // The teacher uploads the file again; these bytes are never read, whether renamed to the id yet or not.
    await store.storage.remove(upload.knowledge_base_id, String(upload.id));
    await deleteDocumentText(store.db, upload.id);
    marked += 1;
  }
  return marked;
}

/**
 * Whether an upload between its row and its job has lost its process: the process that holds it
 * is gone from this machine, or has not renewed its lease in time (it died elsewhere, or stalled).
 * A row that names no process was written before uploads had leases, so only its age tells.
 */
function isOrphanedUpload(upload: UploadInProgress, moment: { now: string; cutoff: string }): boolean {
  if (upload.upload_owner === null) return upload.created_at < moment.cutoff;
  if (upload.upload_lease_expires_at === null || upload.upload_lease_expires_at < moment.now) return true;
  return isDeadLocalOwner(upload.upload_owner);
}
