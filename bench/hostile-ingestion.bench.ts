/**
 * Benchmark of hostile ingestion at the server's default limits: the corpus of
 * test/support/hostile-documents.ts at the sizes of issue 11's reproductions (Word parts that
 * inflate to 300 MB, a PDF whose Flate stream inflates to 300 MB, the same PDF bomb disguised as an
 * image so that only the worker's budgets stand in its way, 120,000-space runs), uploaded one at
 * a time to a real server on SQLite while `/healthz` is polled every HEALTH_INTERVAL_MS.
 *
 *   npm run bench -- bench/hostile-ingestion.bench.ts
 *   (HOSTILE_BOMB_MB=300 HEALTH_INTERVAL_MS=10 change the load; HOSTILE_BENCH_DIALECT=postgres runs it
 *    on PostgreSQL; HOSTILE_BENCH_ONLY=<words> keeps the documents whose label holds them)
 *
 * It prints, per document, how its job ended, how long it took and the slowest /healthz answer
 * while it ran; then the worst /healthz stall of the whole run (target: at most 100 ms) and the
 * peak resident memory of the process. The server, the poller and the uploads share one Node
 * process, so a stall of the server's event loop shows in the poller's answers. It never passes
 * or fails on a time; it checks only that every job ended and /healthz never failed.
 */
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { watchHealth, type HealthFigures } from '../test/support/health-watch.js';
import { hostileCorpus, pdfFlateBomb, type HostileDocument } from '../test/support/hostile-documents.js';
import { uploadDocument, waitForJob } from '../test/support/knowledge-uploads.js';
import type { Dialect } from '../test/support/test-databases.js';
import { loginAsAdmin, request, startTestServer } from '../test/support/test-server.js';
import { milliseconds, printTable, wholeNumberSetting } from './support/measure.js';

/** What the benchmark needs of a document; its own extra cases carry no expected outcome. */
type BenchDocument = Pick<HostileDocument, 'label' | 'fileName' | 'bytes'>;

const MEGABYTE = 1024 * 1024;
const BOMB_BYTES = wholeNumberSetting('HOSTILE_BOMB_MB', 300, 1) * MEGABYTE;
const HEALTH_INTERVAL_MS = wholeNumberSetting('HEALTH_INTERVAL_MS', 10, 1);
const IDLE_BASELINE_MS = 5_000;
/** `sqlite` (the default) or `postgres`. */
const DIALECT: Dialect = process.env.HOSTILE_BENCH_DIALECT === 'postgres' ? 'postgres' : 'sqlite';
/** Ingest only the documents whose label contains this (all when unset). */
const ONLY = process.env.HOSTILE_BENCH_ONLY;

describe('hostile ingestion at the default limits', () => {
  it('prints the worst /healthz stall and the peak RSS while the hostile corpus is ingested', async () => {
    const corpus: HostileDocument[] = await hostileCorpus({
      zipBombBytes: BOMB_BYTES,
      // Three parts of 60 MB: each under INGESTION_ZIP_PART_MAX_BYTES (64 MiB), together past INGESTION_ZIP_TOTAL_MAX_BYTES (128 MiB).
      zipPartBytes: 60 * MEGABYTE,
      zipParts: 3,
      pdfBombBytes: BOMB_BYTES,
      whitespaceCharacters: 120_000,
    });
    corpus.push({
      label: 'PDF Flate bomb disguised as an image',
      fileName: 'disguised.pdf',
      bytes: await pdfFlateBomb(BOMB_BYTES, { disguisedAsImage: true }),
      expected: { status: 'completed' },
    });

    const server = await startTestServer(DIALECT, { environment: { INGESTION_POLL_MS: '20' } });
    let peakResident = process.memoryUsage.rss();
    // Timer lateness on this thread: separates a blocked event loop from a CPU shared with other processes.
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const sampler = setInterval(() => {
      peakResident = Math.max(peakResident, process.memoryUsage.rss());
    }, 10);
    const rows: string[][] = [];
    let worstStall = 0;
    let healthFailures = 0;
    let idleFigures: HealthFigures | undefined;
    try {
      const token = await loginAsAdmin(server);
      const created = await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Hostile corpus' } });
      const knowledgeBase = created.body.id as number;
      // One warm-up document, so the first worker's start-up is not counted against a hostile one.
      const warm = await uploadDocument(server, token, knowledgeBase, 'warm.txt', 'Warm-up text.');
      await waitForJob(server, token, knowledgeBase, warm.body.job_id, 60_000);
      // The same polling with nothing to ingest: what this machine's load alone costs /healthz.
      const idle = watchHealth(server, HEALTH_INTERVAL_MS);
      await new Promise((resolve) => setTimeout(resolve, IDLE_BASELINE_MS));
      idleFigures = await idle.stop();
      loopDelay.reset();

      // Nearly the most characters (5,000,000) cut into the smallest chunks (100): refused by INGESTION_CHUNKS_MAX once chunked.
      const smallChunks = await request(server, 'POST', '/api/knowledge-bases', {
        token,
        body: { name: 'Smallest chunks', chunk_size: 100, chunk_overlap: 0 },
      });
      const tooManyChunks: BenchDocument = {
        label: 'too many chunks: 5,000,000 characters in chunks of 100',
        fileName: 'long.txt',
        bytes: new TextEncoder().encode('Sediment settles in layers at the bottom. '.repeat(119_000)),
      };
      // The most chunks a document may have (about 9,100 of the 10,000 allowed): the longest indexing transaction.
      const mediumChunks = await request(server, 'POST', '/api/knowledge-bases', {
        token,
        body: { name: 'Chunks of 500', chunk_size: 500, chunk_overlap: 0 },
      });
      const mostChunks: BenchDocument = {
        label: 'most chunks allowed: 4,200,000 characters in chunks of 500',
        fileName: 'long.txt',
        bytes: new TextEncoder().encode('Sediment settles in layers at the bottom. '.repeat(100_000)),
      };
      const targets = new Map<BenchDocument, number>([
        [tooManyChunks, smallChunks.body.id as number],
        [mostChunks, mediumChunks.body.id as number],
      ]);
      for (const document of [...corpus, tooManyChunks, mostChunks].filter(
        (candidate) => ONLY === undefined || candidate.label.includes(ONLY),
      )) {
        const health = watchHealth(server, HEALTH_INTERVAL_MS);
        const documentLoopDelay = monitorEventLoopDelay({ resolution: 10 });
        documentLoopDelay.enable();
        const started = performance.now();
        const target = targets.get(document) ?? knowledgeBase;
        const uploaded = await uploadDocument(server, token, target, document.fileName, document.bytes);
        expect(uploaded.status, uploaded.text).toBe(202);
        const job = await waitForJob(server, token, target, uploaded.body.job_id, 300_000);
        const elapsed = performance.now() - started;
        const figures = await health.stop();
        documentLoopDelay.disable();
        worstStall = Math.max(worstStall, figures.worstMilliseconds);
        healthFailures += figures.failures;
        const outcome = job.status === 'completed' ? 'completed' : `failed: ${String(job.error).slice(0, 55)}`;
        rows.push([
          document.label,
          `${(document.bytes.length / 1024).toFixed(0)} KB`,
          outcome,
          milliseconds(elapsed),
          String(figures.checks),
          milliseconds(figures.worstMilliseconds),
          milliseconds(documentLoopDelay.max / 1e6),
        ]);
        expect(['completed', 'failed']).toContain(job.status);
      }
    } finally {
      loopDelay.disable();
      clearInterval(sampler);
      await server.close();
    }

    printTable(
      `Hostile ingestion at default limits (${DIALECT}, bombs of ${BOMB_BYTES / MEGABYTE} MB, /healthz every ${HEALTH_INTERVAL_MS} ms)`,
      [
        { label: 'document', width: 58 },
        { label: 'size', width: 8 },
        { label: 'outcome', width: 64, align: 'left' },
        { label: 'job ms', width: 9 },
        { label: 'checks', width: 7 },
        { label: 'worst /healthz ms', width: 18 },
        { label: 'loop delay max ms', width: 18 },
      ],
      rows,
    );
    process.stdout.write(`\nworst /healthz answer during hostile ingestion: ${milliseconds(worstStall)} ms (target: at most 100 ms)\n`);
    process.stdout.write(
      `worst /healthz answer while idle for ${IDLE_BASELINE_MS / 1000} s before it (this machine's own noise): ${milliseconds(idleFigures.worstMilliseconds)} ms over ${idleFigures.checks} checks\n`,
    );
    process.stdout.write(
      `load average (1, 5, 15 min) at the end: ${os
        .loadavg()
        .map((load) => load.toFixed(2))
        .join(', ')} on ${os.availableParallelism()} CPUs\n`,
    );
    process.stdout.write(
      `event loop delay (monitorEventLoopDelay, 10 ms resolution): p99 ${milliseconds(loopDelay.percentile(99) / 1e6)} ms, max ${milliseconds(loopDelay.max / 1e6)} ms\n`,
    );
    process.stdout.write(`peak resident memory of the process: ${(peakResident / MEGABYTE).toFixed(0)} MB\n`);
    expect(healthFailures).toBe(0);
  });
});
