/**
 * Every blob storage driver keeps the same contract, proven on the real thing: local files,
 * the real PostgreSQL the test run starts, and an S3-compatible server over loopback reached with
 * the official AWS SDK. Round trips with hash and size, range reads across chunk boundaries, a
 * file large enough for many chunks and a multipart upload, the empty file, replacing, moving,
 * listing, deleting, a failing source leaving nothing behind, and hostile keys refused.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWhole, UnsafeBlobKey } from '../src/blobs/blob-storage.js';
import { openTestDriver, TEST_CHUNK_BYTES, TEST_S3_PART_BYTES, TESTED_DRIVERS, type OpenedDriver } from './support/blob-drivers.js';

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** A source that hands its bytes over in uneven pieces, as a network upload does. */
function unevenly(bytes: Buffer): AsyncIterable<Uint8Array> {
  const pieces: Buffer[] = [];
  for (let offset = 0, step = 1; offset < bytes.length; offset += step, step = (step * 7 + 13) % 100_003) {
    pieces.push(bytes.subarray(offset, offset + step));
  }
  return Readable.from(pieces);
}

async function read(driver: OpenedDriver, key: string, range?: { start: number; end?: number }): Promise<Buffer | undefined> {
  const stream = await driver.storage.read(key, range);
  return stream === undefined ? undefined : readWhole(stream);
}

const HOSTILE_KEYS = [
  '../outside',
  'files/../../etc/passwd',
  '/etc/passwd',
  'files//1/x',
  'files/1/.upload-0123456789abcdef0123456789abcdef.part',
  'files/..',
  'files/1/a\\b',
  'files/1/%2e%2e',
  'files/1/a\u0000b',
  'files/1/A.txt',
  '',
  'a/b/c/d/e/f/g/h/i',
];

describe.each(TESTED_DRIVERS)('the %s blob driver', (driverName) => {
  let driver: OpenedDriver;

  beforeAll(async () => {
    driver = await openTestDriver(driverName);
  });

  afterAll(async () => {
    await driver.close();
  });

  it('writes a blob and reads it back with its size and SHA-256', async () => {
    const bytes = randomBytes(200_000);
    const written = await driver.storage.write('files/1/0123456789abcdef0123456789abcdef.txt', unevenly(bytes));
    expect(written).toEqual({ sizeBytes: bytes.length, sha256: sha256(bytes) });
    expect((await read(driver, 'files/1/0123456789abcdef0123456789abcdef.txt'))!.equals(bytes)).toBe(true);
    expect(await driver.storage.stat('files/1/0123456789abcdef0123456789abcdef.txt')).toMatchObject({ sizeBytes: bytes.length });
  });

  it('reads ranges, including ones across chunk boundaries and open-ended ones', async () => {
    const bytes = randomBytes(TEST_CHUNK_BYTES * 3 + 17);
    await driver.storage.write('knowledge/2/7', unevenly(bytes));
    const ranges = [
      { start: 0, end: 0 },
      { start: 10, end: 99 },
      { start: TEST_CHUNK_BYTES - 5, end: TEST_CHUNK_BYTES + 5 },
      { start: TEST_CHUNK_BYTES * 2 + 1 },
      { start: bytes.length - 1, end: bytes.length + 1000 },
    ];
    for (const range of ranges) {
      const expected = bytes.subarray(range.start, range.end === undefined ? undefined : range.end + 1);
      expect((await read(driver, 'knowledge/2/7', range))!.equals(expected), JSON.stringify(range)).toBe(true);
    }
    expect((await read(driver, 'knowledge/2/7', { start: bytes.length + 10 }))!.length).toBe(0);
  });

  it('streams a large file through many chunks and, on S3, a multipart upload', async () => {
    const bytes = randomBytes(TEST_S3_PART_BYTES * 2 + 12_345);
    const written = await driver.storage.write('knowledge/3/1', unevenly(bytes));
    expect(written.sha256).toBe(sha256(bytes));
    expect(sha256((await read(driver, 'knowledge/3/1'))!)).toBe(sha256(bytes));
    if (driver.s3) {
      expect(driver.s3.counts.multipartCompleted).toBeGreaterThanOrEqual(1);
      expect(driver.s3.counts.partsUploaded).toBeGreaterThanOrEqual(3);
    }
  });

  it('stores the empty file', async () => {
    const written = await driver.storage.write('files/4/empty.txt', Readable.from([]));
    expect(written).toEqual({ sizeBytes: 0, sha256: sha256(Buffer.alloc(0)) });
    expect((await read(driver, 'files/4/empty.txt'))!.length).toBe(0);
    expect(await driver.storage.stat('files/4/empty.txt')).toMatchObject({ sizeBytes: 0 });
  });

  it('replaces a blob, moves it, lists by prefix and deletes it', async () => {
    await driver.storage.write('knowledge/5/aaaa.upload', Readable.from([Buffer.from('first')]));
    await driver.storage.write('knowledge/5/aaaa.upload', Readable.from([Buffer.from('second')]));
    expect((await read(driver, 'knowledge/5/aaaa.upload'))!.toString()).toBe('second');
    await driver.storage.move('knowledge/5/aaaa.upload', 'knowledge/5/9');
    expect(await read(driver, 'knowledge/5/aaaa.upload')).toBeUndefined();
    expect((await read(driver, 'knowledge/5/9'))!.toString()).toBe('second');
    await driver.storage.write('knowledge/55/1', Readable.from([Buffer.from('elsewhere')]));
    const listed = [];
    for await (const blob of driver.storage.list('knowledge/5/')) listed.push(blob.key);
    expect(listed).toEqual(['knowledge/5/9']);
    await driver.storage.delete('knowledge/5/9');
    await driver.storage.delete('knowledge/5/9');
    expect(await read(driver, 'knowledge/5/9')).toBeUndefined();
    expect(await driver.storage.stat('knowledge/5/9')).toBeUndefined();
    await driver.storage.deletePrefix('knowledge/55/');
    expect(await driver.storage.stat('knowledge/55/1')).toBeUndefined();
  });

  it('leaves nothing under the key when the source fails mid-way, and passes the error on', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield randomBytes(TEST_CHUNK_BYTES * 2);
      throw new Error('the client went away');
    }
    await expect(driver.storage.write('files/6/cut.txt', failing())).rejects.toThrow('the client went away');
    expect(await driver.storage.stat('files/6/cut.txt')).toBeUndefined();
    const listed = [];
    for await (const blob of driver.storage.list('files/6/')) listed.push(blob.key);
    expect(listed).toEqual([]);
  });

  it('refuses hostile keys before touching anything', async () => {
    for (const key of HOSTILE_KEYS) {
      await expect(driver.storage.write(key, Readable.from([Buffer.from('x')])), key).rejects.toThrow(UnsafeBlobKey);
      await expect(driver.storage.read(key), key).rejects.toThrow(UnsafeBlobKey);
      await expect(driver.storage.stat(key), key).rejects.toThrow(UnsafeBlobKey);
      await expect(driver.storage.delete(key), key).rejects.toThrow(UnsafeBlobKey);
    }
    await expect(driver.storage.list('../')[Symbol.asyncIterator]().next()).rejects.toThrow(UnsafeBlobKey);
    await expect(driver.storage.read('files/1/x', { start: -1 })).rejects.toThrow(RangeError);
  });
});
