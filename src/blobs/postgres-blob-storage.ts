/**
 * The `postgres` blob driver: blobs in the store itself, in chunks (tables `blobs` and
 * `blob_chunks`, migration 0050), so a deployment of several processes on one PostgreSQL needs
 * no other moving part. A write inserts a keyless `blobs` row, streams the bytes in a chunk at a
 * time (never the whole file in memory), then in one transaction removes any older blob of that
 * key and gives the new row its key: readers see the old blob or the new one, never a partial
 * one. A process killed mid-write leaves a keyless row that `sweepUnfinished` removes. Reads
 * fetch one chunk at a time, and a range read fetches only the chunks it covers. The tables exist
 * on SQLite too; the driver works there, but `local` is SQLite's default.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../store/schema.js';
import {
  checkBlobKey,
  checkBlobPrefix,
  checkByteRange,
  fixedSizeChunks,
  HashingCounter,
  type BlobInfo,
  type BlobStorage,
  type ByteRange,
  type WrittenBlob,
} from './blob-storage.js';

/** STORAGE_CHUNK_BYTES's default: 1 MiB a row, well under PostgreSQL's 1 GB field limit and cheap to hold. */
export const STORAGE_CHUNK_BYTES = 1_048_576;
const LIST_PAGE_SIZE = 500;

interface BlobRow {
  id: number;
  sizeBytes: number;
  chunkBytes: number;
}

export class PostgresBlobStorage implements BlobStorage {
  readonly driver = 'postgres';

  constructor(
    private readonly db: Kysely<Database>,
    private readonly chunkBytes: number = STORAGE_CHUNK_BYTES,
  ) {}

  async write(key: string, bytes: AsyncIterable<Uint8Array>): Promise<WrittenBlob> {
    checkBlobKey(key);
    const inserted = await this.db
      .insertInto('blobs')
      .values({ key: null, size_bytes: 0, sha256: '', chunk_bytes: this.chunkBytes, created_at: Date.now() })
      .returning('id')
      .executeTakeFirstOrThrow();
    const id = inserted.id;
    try {
      const counter = new HashingCounter();
      let index = 0;
      for await (const chunk of fixedSizeChunks(counter.pass(bytes), this.chunkBytes)) {
        await this.db.insertInto('blob_chunks').values({ blob_id: id, chunk_index: index, bytes: chunk }).execute();
        index += 1;
      }
      const written = counter.result();
      await this.db.transaction().execute(async (transaction) => {
        await deleteByKey(transaction, key);
        await transaction
          .updateTable('blobs')
          .set({ key, size_bytes: written.sizeBytes, sha256: written.sha256 })
          .where('id', '=', id)
          .execute();
      });
      return written;
    } catch (error) {
      await this.db
        .transaction()
        .execute((transaction) => deleteById(transaction, id))
        .catch(() => undefined);
      throw error;
    }
  }

  private async find(key: string): Promise<BlobRow | undefined> {
    const row = await this.db.selectFrom('blobs').select(['id', 'size_bytes', 'chunk_bytes']).where('key', '=', key).executeTakeFirst();
    return row && { id: row.id, sizeBytes: Number(row.size_bytes), chunkBytes: row.chunk_bytes };
  }

  async read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    checkBlobKey(key);
    checkByteRange(range);
    const blob = await this.find(key);
    if (blob === undefined) return undefined;
    const start = Math.min(range?.start ?? 0, blob.sizeBytes);
    const end = Math.min(range?.end ?? blob.sizeBytes - 1, blob.sizeBytes - 1);
    return this.chunksOf(blob, start, end);
  }

  /** Bytes `start`..`end` (inclusive) of the blob, one chunk row fetched at a time. */
  private async *chunksOf(blob: BlobRow, start: number, end: number): AsyncGenerator<Uint8Array> {
    if (end < start) return;
    const first = Math.floor(start / blob.chunkBytes);
    const last = Math.floor(end / blob.chunkBytes);
    for (let index = first; index <= last; index += 1) {
      const row = await this.db
        .selectFrom('blob_chunks')
        .select('bytes')
        .where('blob_id', '=', blob.id)
        .where('chunk_index', '=', index)
        .executeTakeFirst();
      // The blob was replaced or deleted while it was being read.
      if (row === undefined) throw new Error('The blob changed while it was being read.');
      const bytes = Buffer.from(row.bytes);
      const offset = index * blob.chunkBytes;
      yield bytes.subarray(Math.max(0, start - offset), Math.min(bytes.length, end - offset + 1));
    }
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    checkBlobKey(key);
    const row = await this.db.selectFrom('blobs').select(['size_bytes', 'created_at']).where('key', '=', key).executeTakeFirst();
    return row && { key, sizeBytes: Number(row.size_bytes), modifiedAt: Number(row.created_at) };
  }

  async delete(key: string): Promise<void> {
    checkBlobKey(key);
    await this.db.transaction().execute((transaction) => deleteByKey(transaction, key));
  }

  async deletePrefix(prefix: string): Promise<void> {
    checkBlobPrefix(prefix);
    for await (const blob of this.list(prefix)) await this.delete(blob.key);
  }

  async move(from: string, to: string): Promise<void> {
    checkBlobKey(from);
    checkBlobKey(to);
    await this.db.transaction().execute(async (transaction) => {
      const moved = await transaction.selectFrom('blobs').select('id').where('key', '=', from).executeTakeFirst();
      if (moved === undefined) throw new Error('There is no blob to move.');
      await deleteByKey(transaction, to);
      await transaction.updateTable('blobs').set({ key: to }).where('id', '=', moved.id).execute();
    });
  }

  async *list(prefix: string): AsyncGenerator<BlobInfo> {
    checkBlobPrefix(prefix);
    let after = '';
    for (;;) {
      const rows = await this.db
        .selectFrom('blobs')
        .select(['key', 'size_bytes', 'created_at'])
        .where('key', 'is not', null)
        // Not LIKE: `_` in a key is a LIKE wildcard.
        .where(sql<string>`substr(key, 1, ${prefix.length})`, '=', prefix)
        .where('key', '>', after)
        .orderBy('key')
        .limit(LIST_PAGE_SIZE)
        .execute();
      for (const row of rows) yield { key: row.key!, sizeBytes: Number(row.size_bytes), modifiedAt: Number(row.created_at) };
      if (rows.length < LIST_PAGE_SIZE) return;
      after = rows.at(-1)!.key!;
    }
  }

  async sweepUnfinished(graceMilliseconds: number): Promise<number> {
    const unfinished = await this.db
      .selectFrom('blobs')
      .select('id')
      .where('key', 'is', null)
      .where('created_at', '<', Date.now() - graceMilliseconds)
      .execute();
    for (const { id } of unfinished) await this.db.transaction().execute((transaction) => deleteById(transaction, id));
    return unfinished.length;
  }

  async close(): Promise<void> {}
}

async function deleteById(transaction: Transaction<Database>, id: number): Promise<void> {
  await transaction.deleteFrom('blob_chunks').where('blob_id', '=', id).execute();
  await transaction.deleteFrom('blobs').where('id', '=', id).execute();
}

async function deleteByKey(transaction: Transaction<Database>, key: string): Promise<void> {
  const existing = await transaction.selectFrom('blobs').select('id').where('key', '=', key).executeTakeFirst();
  if (existing !== undefined) await deleteById(transaction, existing.id);
}
