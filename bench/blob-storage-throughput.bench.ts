/**
 * Upload and download throughput of each blob storage driver, in MB/s: `local` (files in a
 * temporary folder), `postgres` (chunks in the run's real PostgreSQL) and `s3` (the loopback
 * S3-compatible fake, through the official AWS SDK; its figures include the fake's own cost of
 * buffering every object in memory). Each driver writes and reads back files of a few sizes,
 * streamed in 64 KiB pieces as an HTTP upload would arrive, with the default chunk and part
 * sizes. Prints figures and the machine's core count; never passes or fails on them.
 *
 *   npm run bench -- bench/blob-storage-throughput.bench.ts     (SIZES_MB=1,16,64 ROUNDS=3 to change the load)
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { STORAGE_CHUNK_BYTES } from '../src/blobs/postgres-blob-storage.js';
import { openTestDriver, TESTED_DRIVERS } from '../test/support/blob-drivers.js';

const SIZES_MEGABYTES = (process.env.SIZES_MB ?? '1,16,64').split(',').map(Number);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PIECE_BYTES = 65_536;
const MEGABYTE = 1_000_000;

function pieces(bytes: Buffer): Readable {
  const list: Buffer[] = [];
  for (let offset = 0; offset < bytes.length; offset += PIECE_BYTES) list.push(bytes.subarray(offset, offset + PIECE_BYTES));
  return Readable.from(list);
}

async function drain(stream: AsyncIterable<Uint8Array>): Promise<number> {
  let size = 0;
  for await (const chunk of stream) size += chunk.length;
  return size;
}

/** The production defaults of STORAGE_CHUNK_BYTES, STORAGE_S3_PART_BYTES and STORAGE_S3_PARTS_IN_FLIGHT. */
const DEFAULT_SIZES = { chunkBytes: STORAGE_CHUNK_BYTES, partBytes: 8_388_608, partsInFlight: 4 };

describe('blob storage throughput', () => {
  it('prints upload and download MB/s per driver and file size', async () => {
    const lines = [`cores: ${os.cpus().length} (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}`];
    lines.push('driver    size      upload MB/s   download MB/s   (median of rounds)');
    for (const driverName of TESTED_DRIVERS) {
      const opened = await openTestDriver(driverName, DEFAULT_SIZES);
      const storage = opened.storage;
      try {
        for (const megabytes of SIZES_MEGABYTES) {
          const bytes = randomBytes(megabytes * MEGABYTE);
          const uploads: number[] = [];
          const downloads: number[] = [];
          for (let round = 0; round < ROUNDS; round += 1) {
            const key = `knowledge/1/${megabytes}-${round}`;
            let started = performance.now();
            const written = await storage.write(key, pieces(bytes));
            uploads.push(bytes.length / MEGABYTE / ((performance.now() - started) / 1000));
            started = performance.now();
            const read = await drain((await storage.read(key))!);
            downloads.push(bytes.length / MEGABYTE / ((performance.now() - started) / 1000));
            expect(written.sizeBytes).toBe(bytes.length);
            expect(read).toBe(bytes.length);
            await storage.delete(key);
          }
          const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
          lines.push(
            `${driverName.padEnd(9)} ${`${megabytes} MB`.padEnd(9)} ${median(uploads).toFixed(1).padStart(11)}   ${median(downloads).toFixed(1).padStart(13)}`,
          );
        }
      } finally {
        await opened.close();
      }
    }
    process.stdout.write(`\n${lines.join('\n')}\n\n`);
  });
});
