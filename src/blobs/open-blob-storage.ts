/**
 * Picks and opens the blob storage driver from the settings: STORAGE_URL when set (`local`,
 * `postgres` or an `s3://` URL), otherwise `postgres` when the store is PostgreSQL (several
 * processes then share their files with no other moving part) and `local` on SQLite.
 */
import type { Kysely } from 'kysely';
import type { Dialect } from '../store/dialect.js';
import type { Database } from '../store/schema.js';
import type { BlobStorage } from './blob-storage.js';
import { LocalBlobStorage } from './local-blob-storage.js';
import { PostgresBlobStorage } from './postgres-blob-storage.js';
import { S3BlobStorage } from './s3-blob-storage.js';
import { parseS3Url } from './s3-location.js';

export interface BlobStorageSettings {
  storageUrl?: string | undefined;
  dataDirectory: string;
  storageChunkBytes: number;
  storageS3PartBytes: number;
  storageS3PartsInFlight: number;
  storageS3TimeoutMilliseconds: number;
}

/** The driver STORAGE_URL names, or the default for the store's dialect when it names none. */
export function storageUrlFor(settings: Pick<BlobStorageSettings, 'storageUrl'>, dialect: Dialect): string {
  return settings.storageUrl ?? (dialect === 'postgres' ? 'postgres' : 'local');
}

/** Opens the driver `storageUrl` names (`local`, `postgres` or `s3://…`) over the given store and settings. */
export function openBlobStorage(storageUrl: string, store: { db: Kysely<Database> }, settings: BlobStorageSettings): BlobStorage {
  if (storageUrl === 'local') return new LocalBlobStorage(settings.dataDirectory);
  if (storageUrl === 'postgres') return new PostgresBlobStorage(store.db, settings.storageChunkBytes);
  return new S3BlobStorage({
    location: parseS3Url(storageUrl),
    partBytes: settings.storageS3PartBytes,
    partsInFlight: settings.storageS3PartsInFlight,
    timeoutMilliseconds: settings.storageS3TimeoutMilliseconds,
  });
}
