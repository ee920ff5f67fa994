// A document worker thread that reads only small texts (the texts of JSON uploads, Markdown) never
// loads the libraries of other readers: starting a thread cost 553 to 586 ms of CPU with them
// loaded up front, 140 to 200 ms without (docs/knowledge-bases.md). The script runs in a process of
// its own, as a thread starts with a module cache of its own.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('./support/reader-loading-script.ts', import.meta.url));

describe('document readers', () => {
  it('load the archive, caption and Spanish stemming libraries only when a document needs them', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', SCRIPT], { timeout: 60_000 });
    const loaded = JSON.parse(stdout) as { afterSmallText: string[]; afterOtherDocuments: string[] };
    expect(loaded.afterSmallText).toEqual([]);
    expect(loaded.afterOtherDocuments).toEqual(['yauzl', 'subtitle', 'snowball-stemmers']);
  });
});
