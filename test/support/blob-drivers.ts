/**
 * Opens each blob storage driver for tests: `local` in a fresh folder, `postgres` on a fresh
 * database of the run's real PostgreSQL, `s3` on the fake S3 server over loopback (through the
 * official AWS SDK). Small chunk and part sizes, so that a file of a few MiB already crosses
 * many chunks and several multipart parts.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { BlobDriverName, BlobStorage } from '../../src/blobs/blob-storage.js';
import { LocalBlobStorage } from '../../src/blobs/local-blob-storage.js';
import { PostgresBlobStorage } from '../../src/blobs/postgres-blob-storage.js';
import { S3BlobStorage } from '../../src/blobs/s3-blob-storage.js';
import { openStore } from '../../src/store/store.js';
import { startFakeS3Server, type FakeS3Server } from '../fakes/fake-s3-server.js';
import { createTestDatabase, TEST_DIALECTS } from './test-databases.js';

/** The smallest part S3 accepts; a test file over twice this size is sent in three parts or more. */
export const TEST_S3_PART_BYTES = 5 * 1024 * 1024;
export const TEST_CHUNK_BYTES = 65_536;

export interface OpenedDriver {
  storage: BlobStorage;
  /** The fake server behind the s3 driver. */
  s3?: FakeS3Server;
  close(): Promise<void>;
}

/** The drivers this run can test: postgres only when the run has PostgreSQL. */
export const TESTED_DRIVERS: readonly BlobDriverName[] = TEST_DIALECTS.includes('postgres') ? ['local', 'postgres', 's3'] : ['local', 's3'];

export function s3UrlFor(server: FakeS3Server, prefix = 'merino'): string {
  return `s3://${server.bucket}/${prefix}?endpoint=${encodeURIComponent(server.endpoint)}&region=us-east-1&path_style=true`;
}

/** Credentials the SDK reads from the environment; the fake wants a signature, not a valid one. */
export function useTestS3Credentials(): void {
  process.env.AWS_ACCESS_KEY_ID = 'merino-test-key';
  process.env.AWS_SECRET_ACCESS_KEY = 'merino-test-secret';
}

/** Chunk and part sizes; the tests' small ones unless given (the benchmark uses the production defaults). */
export interface DriverSizes {
  chunkBytes: number;
  partBytes: number;
  partsInFlight: number;
}

const TEST_SIZES: DriverSizes = { chunkBytes: TEST_CHUNK_BYTES, partBytes: TEST_S3_PART_BYTES, partsInFlight: 2 };

export async function openTestDriver(driver: BlobDriverName, sizes: DriverSizes = TEST_SIZES): Promise<OpenedDriver> {
  if (driver === 'local') {
    const folder = await mkdtemp(path.join(os.tmpdir(), 'merino-blobs-'));
    return { storage: new LocalBlobStorage(folder), close: () => rm(folder, { recursive: true, force: true }) };
  }
  if (driver === 'postgres') {
    const database = await createTestDatabase('postgres');
    const store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 4 });
    return {
      storage: new PostgresBlobStorage(store.db, sizes.chunkBytes),
      close: async () => {
        await store.close();
        await database.drop();
      },
    };
  }
  useTestS3Credentials();
  const s3 = await startFakeS3Server();
  const storage = new S3BlobStorage({
    location: { bucket: s3.bucket, prefix: 'merino/', endpoint: s3.endpoint, region: 'us-east-1', pathStyle: true },
    partBytes: sizes.partBytes,
    partsInFlight: sizes.partsInFlight,
    timeoutMilliseconds: 10_000,
  });
  return {
    storage,
    s3,
    close: async () => {
      await storage.close();
      await s3.close();
    },
  };
}
