// Proves that writes to one folder of the local blob driver, made at once and sharing their folder syncs, each land whole under their own key.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { readWhole } from './blob-storage.js';
import { LocalBlobStorage } from './local-blob-storage.js';

let folder: string | undefined;

afterEach(async () => {
  if (folder !== undefined) await rm(folder, { recursive: true, force: true });
  folder = undefined;
});

describe('LocalBlobStorage', () => {
  it('writes and moves many blobs of one folder at once, each whole under its own key', async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'merino-local-blobs-'));
    const blobs = new LocalBlobStorage(folder);
    const texts = Array.from({ length: 60 }, (_, index) => `Basalt column ${index}`);
    await Promise.all(texts.map((text, index) => blobs.write(`knowledge/1/${index}.upload`, Readable.from([Buffer.from(text)]))));
    await Promise.all(texts.map((_, index) => blobs.move(`knowledge/1/${index}.upload`, `knowledge/1/${index + 1}`)));
    const read = await Promise.all(
      texts.map(async (_, index) => (await readWhole((await blobs.read(`knowledge/1/${index + 1}`))!)).toString()),
    );
    expect(read).toEqual(texts);
    expect(await blobs.read('knowledge/1/0.upload')).toBeUndefined();
  });
});
