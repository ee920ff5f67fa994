/**
 * Blob storage: the one interface through which every byte that other processes may need is
 * written and read (uploaded files, knowledge-base originals, staged uploads). A blob is named by
 * a key of slash-separated segments (`files/12/<hex>.pdf`, `knowledge/3/41`) that Merino makes
 * itself; keys are checked here, so no driver ever sees `..`, an absolute path or a stray byte.
 * Three drivers implement it: local (files under DATA_DIR), postgres (chunks in the database) and
 * s3 (any S3-compatible object store). See docs/blob-storage.md.
 */
import { createHash } from 'node:crypto';

export type BlobDriverName = 'local' | 'postgres' | 's3';

/** The key prefixes Merino writes under: each is listed and copied by `merino storage copy`. */
export const BLOB_AREAS = ['files/', 'knowledge/'] as const;

/** What a finished write stored. */
export interface WrittenBlob {
  sizeBytes: number;
  /** Lower-case hex SHA-256 of every byte written. */
  sha256: string;
}

/** A stored blob as a listing or `stat` sees it. */
export interface BlobInfo {
  key: string;
  sizeBytes: number;
  /** Milliseconds since the epoch at which it was written. */
  modifiedAt: number;
}

/** Bytes `start` to `end`, both inclusive (as in HTTP's Range header); `end` past the last byte means "to the end". */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface BlobStorage {
  readonly driver: BlobDriverName;
  /**
   * Streams `bytes` into the blob `key`, replacing any blob of that key only once every byte is
   * in: a failed or abandoned write never leaves a partial blob under a real key. An error thrown
   * by the source (a size limit, a content check) aborts the write and is passed on.
   */
  write(key: string, bytes: AsyncIterable<Uint8Array>): Promise<WrittenBlob>;
  /** The blob's bytes (or a range of them) as a stream; undefined when no such blob exists. */
  read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** The whole blob in one buffer, for a driver that does better than a stream (local files); undefined when missing. */
  readWhole?(key: string): Promise<Buffer | undefined>;
  stat(key: string): Promise<BlobInfo | undefined>;
  /** Removes a blob; one already gone is fine. */
  delete(key: string): Promise<void>;
  /** Removes every blob whose key starts with `prefix` (which ends in `/`), and for `local` its folder. */
  deletePrefix(prefix: string): Promise<void>;
  /** Gives a blob another key, replacing whatever held it. */
  move(from: string, to: string): Promise<void>;
  /** Every complete blob whose key starts with `prefix` (which ends in `/` or is empty), in no set order. */
  list(prefix: string): AsyncIterable<BlobInfo>;
  /** Removes writes that a killed process left unfinished more than `graceMilliseconds` ago; returns how many. */
  sweepUnfinished(graceMilliseconds: number): Promise<number>;
  close(): Promise<void>;
}

/** One key segment: starts with a letter or digit (so never `.`, `..` or a hidden name), then letters, digits, `.`, `_`, `-`. */
const KEY_SEGMENT = /^[a-z0-9][a-z0-9._-]{0,127}$/;
const KEY_SEGMENTS_MAXIMUM = 8;

/** Thrown for a key Merino could not have made; a driver never touches anything for it. */
export class UnsafeBlobKey extends Error {
  constructor(reason: string) {
    super(`Not a blob key: it ${reason}.`);
  }
}

/** Refuses any key that is not 1–8 segments of lower-case letters, digits, `.`, `_` and `-`, none starting with a dot. */
export function checkBlobKey(key: string): string {
  if (typeof key !== 'string' || key === '') throw new UnsafeBlobKey('is empty');
  const segments = key.split('/');
  if (segments.length > KEY_SEGMENTS_MAXIMUM) throw new UnsafeBlobKey(`has more than ${KEY_SEGMENTS_MAXIMUM} segments`);
  if (!segments.every((segment) => KEY_SEGMENT.test(segment))) throw new UnsafeBlobKey('has an empty, hidden or unsafe segment');
  return key;
}

/** Refuses a listing prefix that is not empty or a run of safe segments followed by `/`. */
export function checkBlobPrefix(prefix: string): string {
  if (prefix === '') return prefix;
  if (!prefix.endsWith('/')) throw new UnsafeBlobKey('is a prefix that does not end in "/"');
  checkBlobKey(prefix.slice(0, -1));
  return prefix;
}

/** Refuses a range that is not whole, non-negative bytes with its end at or after its start. */
export function checkByteRange(range: ByteRange | undefined): void {
  if (range === undefined) return;
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || start < 0) throw new RangeError('A byte range starts at a whole number of 0 or more.');
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start)) throw new RangeError('A byte range ends at or after its start.');
}

/**
 * Passes the source's chunks on while counting and hashing them, so every driver reports the
 * same size and hash however it stores the bytes.
 */
export class HashingCounter {
  private readonly hash = createHash('sha256');
  sizeBytes = 0;

  async *pass(bytes: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
    for await (const chunk of bytes) {
      this.hash.update(chunk);
      this.sizeBytes += chunk.length;
      yield chunk;
    }
  }

  result(): WrittenBlob {
    return { sizeBytes: this.sizeBytes, sha256: this.hash.digest('hex') };
  }
}

/** Regroups a stream into chunks of exactly `size` bytes (the last one shorter), holding at most one chunk in memory. */
export async function* fixedSizeChunks(bytes: AsyncIterable<Uint8Array>, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const chunk of bytes) {
    let rest = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    while (pendingBytes + rest.length >= size) {
      const take = size - pendingBytes;
      pending.push(rest.subarray(0, take));
      yield Buffer.concat(pending);
      rest = rest.subarray(take);
      pending = [];
      pendingBytes = 0;
    }
    if (rest.length > 0) {
      // Copied: the source may reuse its buffer for the next chunk.
      pending.push(Buffer.from(rest));
      pendingBytes += rest.length;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}

/** Every byte of a blob, for the few readers that need it whole (content detection, the document worker). */
export async function readWhole(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
}
