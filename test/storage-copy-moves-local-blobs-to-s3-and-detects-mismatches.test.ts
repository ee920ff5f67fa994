/**
 * `merino storage copy` moves an installation's blobs from `local` to S3 storage (an S3-compatible
 * server over loopback, through the official SDK) and proves every copy by its SHA-256: the real
 * command, run as a process. Run again, it copies nothing and finds everything present; after a
 * blob at the target is corrupted, it reports that key as a mismatch and exits non-zero.
 */
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { LocalBlobStorage } from '../src/blobs/local-blob-storage.js';
import { startFakeS3Server, type FakeS3Server } from './fakes/fake-s3-server.js';
import { s3UrlFor } from './support/blob-drivers.js';

interface CommandResult {
  status: number;
  output: string;
}

function runMerino(dataDirectory: string, ...argumentsGiven: string[]): Promise<CommandResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [inject('compiledMain'), ...argumentsGiven],
      {
        env: {
          PATH: process.env.PATH ?? '',
          DATA_DIR: dataDirectory,
          AWS_ACCESS_KEY_ID: 'merino-test-key',
          AWS_SECRET_ACCESS_KEY: 'merino-test-secret',
          STORAGE_S3_PART_BYTES: String(5 * 1024 * 1024),
        },
        timeout: 60_000,
      },
      (error, stdout, stderr) => resolve({ status: error === null ? 0 : Number(error.code ?? 1), output: `${stdout}${stderr}` }),
    );
  });
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

describe('copying blob storage from local to s3', () => {
  let folder: string | undefined;
  let s3: FakeS3Server | undefined;

  afterEach(async () => {
    await s3?.close();
    if (folder !== undefined) await rm(folder, { recursive: true, force: true });
    folder = s3 = undefined;
  });

  it('copies every blob with matching hashes, is idempotent, and reports a corrupted copy with a non-zero exit', async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'merino-copy-'));
    s3 = await startFakeS3Server();
    const local = new LocalBlobStorage(folder);
    const blobs = new Map<string, Buffer>([
      ['files/1/0123456789abcdef0123456789abcdef.txt', Buffer.from('Notes of user 1.')],
      ['files/2/fedcba9876543210fedcba9876543210.md', Buffer.alloc(0)],
      ['knowledge/3/14', randomBytes(11 * 1024 * 1024)],
    ]);
    for (const [key, bytes] of blobs) await local.write(key, Readable.from([bytes]));
    const target = s3UrlFor(s3, 'moved');

    const first = await runMerino(folder, 'storage', 'copy', '--from', 'local', '--to', target);
    expect(first.output).toContain('copied 3 blobs');
    expect(first.output).toContain('0 mismatches');
    expect(first.status).toBe(0);
    for (const [key, bytes] of blobs) expect(sha256(s3.objects.get(`moved/${key}`)!.bytes), key).toBe(sha256(bytes));
    // The store's own files in the data folder are not blobs and stay behind.
    expect([...s3.objects.keys()].every((key) => key.startsWith('moved/files/') || key.startsWith('moved/knowledge/'))).toBe(true);
    expect(s3.counts.multipartCompleted).toBeGreaterThanOrEqual(1);

    const again = await runMerino(folder, 'storage', 'copy', '--from', 'local', '--to', target);
    expect(again.output).toContain('copied 0 blobs (0 bytes), 3 already present, 0 mismatches');
    expect(again.status).toBe(0);

    const corrupted = 'files/1/0123456789abcdef0123456789abcdef.txt';
    s3.corrupt(`moved/${corrupted}`, Buffer.from('Notes of user 2.'));
    const checked = await runMerino(folder, 'storage', 'copy', '--from', 'local', '--to', target);
    expect(checked.output).toContain('1 mismatches');
    expect(checked.output).toContain(`mismatch: ${corrupted} differs between local and s3`);
    expect(checked.output).not.toContain('Notes of user');
    expect(checked.status).toBe(1);
  }, 120_000);

  it('refuses an incomplete command line with the usage and status 64', async () => {
    folder = await mkdtemp(path.join(os.tmpdir(), 'merino-copy-'));
    const result = await runMerino(folder, 'storage', 'copy', '--from', 'local');
    expect(result.output).toContain('usage: merino');
    expect(result.status).toBe(64);
  });
});
