// Proves that FileStorage.store answers an upload's bytes with its storing when the upload is no
// larger than `keptBytesMaximum` (the bytes stored and the bytes answered being the same), and
// answers none past it or when nothing is asked to be kept, on a real local blob storage.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalBlobStorage } from '../blobs/local-blob-storage.js';
import { FileStorage } from './file-storage.js';

/** The upload as the multipart parser hands it over: several chunks. */
async function* chunksOf(bytes: Buffer, chunkSize: number): AsyncGenerator<Uint8Array> {
  for (let start = 0; start < bytes.length; start += chunkSize) yield bytes.subarray(start, start + chunkSize);
}

let dataDirectory: string;
let storage: FileStorage;

beforeEach(async () => {
  dataDirectory = await mkdtemp(path.join(os.tmpdir(), 'merino-kept-uploads-'));
  storage = new FileStorage(new LocalBlobStorage(dataDirectory), { folder: 'knowledge' });
});

afterEach(async () => {
  await rm(dataDirectory, { recursive: true, force: true });
});

describe('FileStorage.store', () => {
  it('answers the bytes of an upload within keptBytesMaximum, the same bytes it stored', async () => {
    const upload = Buffer.from('# Basalt\n\nBasalt cools into columns.\n'.repeat(100));
    const stored = await storage.store(7, chunksOf(upload, 1000), {
      bytesMaximum: 1_000_000,
      extension: 'upload',
      keptBytesMaximum: upload.length,
    });
    expect(stored.bytes?.equals(upload)).toBe(true);
    expect((await storage.readAll(7, stored.storedName))?.equals(upload)).toBe(true);
  });

  it('answers no bytes past keptBytesMaximum or when none are to be kept, and still stores the upload whole', async () => {
    const upload = Buffer.alloc(5000, 'a');
    const past = await storage.store(7, chunksOf(upload, 1000), { bytesMaximum: 1_000_000, extension: 'upload', keptBytesMaximum: 4999 });
    const unasked = await storage.store(7, chunksOf(upload, 1000), { bytesMaximum: 1_000_000, extension: 'upload' });
    for (const stored of [past, unasked]) {
      expect(stored.bytes).toBeUndefined();
      expect(stored.sizeBytes).toBe(5000);
      expect((await storage.readAll(7, stored.storedName))?.equals(upload)).toBe(true);
    }
  });
});
