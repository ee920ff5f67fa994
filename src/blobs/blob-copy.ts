/**
 * `merino storage copy --from <driver> --to <driver>`: copies every blob Merino wrote from one
 * blob storage to another and proves each copy by its SHA-256, so an installation can move from
 * `local` to `postgres` or `s3`. Idempotent and resumable: a blob already at the target with the
 * same bytes is counted as present and left alone, so a copy cut short is simply run again. A
 * blob at the target whose bytes differ is a mismatch: it is reported (by key, never by content)
 * and not overwritten, and the command exits non-zero.
 */
import { createHash } from 'node:crypto';
import { BLOB_AREAS, type BlobStorage } from './blob-storage.js';

export interface BlobCopyReport {
  /** Blobs written to the target and read back with the source's hash. */
  copied: number;
  /** Blobs the target already held with the same bytes. */
  present: number;
  /** Keys whose bytes at the target differ from the source's (after copying, or from before). */
  mismatches: string[];
  /** Bytes written to the target. */
  bytesCopied: number;
}

/** Reads a blob through and returns its SHA-256 and size; undefined when it is missing. */
async function hashOf(storage: BlobStorage, key: string): Promise<{ sha256: string; sizeBytes: number } | undefined> {
  const stream = await storage.read(key);
  if (stream === undefined) return undefined;
  const hash = createHash('sha256');
  let sizeBytes = 0;
  for await (const chunk of stream) {
    hash.update(chunk);
    sizeBytes += chunk.length;
  }
  return { sha256: hash.digest('hex'), sizeBytes };
}

/** Copies one blob unless the target has it already, then checks the target's bytes against the source's hash. */
async function copyOne(from: BlobStorage, to: BlobStorage, key: string, report: BlobCopyReport): Promise<void> {
  const source = await hashOf(from, key);
  // Removed at the source since it was listed: nothing to copy.
  if (source === undefined) return;
  const existing = await hashOf(to, key);
  if (existing !== undefined) {
    if (existing.sha256 === source.sha256) report.present += 1;
    else report.mismatches.push(key);
    return;
  }
  const stream = await from.read(key);
  if (stream === undefined) return;
  const written = await to.write(key, stream);
  const readBack = await hashOf(to, key);
  if (written.sha256 !== source.sha256 || readBack?.sha256 !== source.sha256) {
    report.mismatches.push(key);
    return;
  }
  report.copied += 1;
  report.bytesCopied += written.sizeBytes;
}

/** Copies every blob under Merino's areas from `from` to `to`; `onProgress` hears each key as it is done. */
export async function copyBlobs(from: BlobStorage, to: BlobStorage, onProgress?: (key: string) => void): Promise<BlobCopyReport> {
  const report: BlobCopyReport = { copied: 0, present: 0, mismatches: [], bytesCopied: 0 };
  for (const area of BLOB_AREAS) {
    for await (const blob of from.list(area)) {
      await copyOne(from, to, blob.key, report);
      onProgress?.(blob.key);
    }
  }
  return report;
}
