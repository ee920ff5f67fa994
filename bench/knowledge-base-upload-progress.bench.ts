/**
 * Benchmark of live ingestion progress: UPLOAD_PROGRESS_FILES (1,000) small markdown files uploaded
 * as the knowledge base page uploads them (one multipart `POST /api/knowledge-bases/{id}/documents`
 * per file, the only shape the endpoint takes, UPLOAD_PROGRESS_CONCURRENCY (6, a browser's
 * connections per host) at once), while a client follows `GET /api/knowledge-bases/{id}/jobs/events`.
 * Run on SQLite with one server process, and on PostgreSQL with two: uploads go to A, which alone
 * ingests; the stream is held on B (INGESTION_IN_WEB=false), so every event crossed the store.
 *
 * Printed per run: documents per second, from the first upload to the last `completed` event; and
 * the progress lag, per job, from the job's real state change as the store stamped it (after the
 * run, the jobs list gives each job's `created_at` and, for a completed job, its `updated_at`, the
 * moment it completed) to the arrival of the event saying so: median, p95 and max, for `completed`
 * and for `queued`. The target is a lag of at most 1 s. Server processes, client and store share
 * one machine and one clock. Figures are printed, never asserted on; the only check is that every
 * job completed and its completion was seen.
 *
 *   npm run bench -- bench/knowledge-base-upload-progress.bench.ts
 *   (UPLOAD_PROGRESS_FILES, UPLOAD_PROGRESS_CONCURRENCY change the work; JOB_EVENTS_POLL_MS and the
 *    INGESTION_* settings pass through to the servers)
 */
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { uploadDocument } from '../test/support/knowledge-uploads.js';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.js';
import { createTestDatabase, TEST_DIALECTS, type Dialect } from '../test/support/test-databases.js';
import { loginAsAdmin, request } from '../test/support/test-server.js';
import { ascending, percentile, printTable, runPool, wholeNumberSetting } from './support/measure.js';

const FILES = wholeNumberSetting('UPLOAD_PROGRESS_FILES', 1_000, 1);
const CONCURRENCY = wholeNumberSetting('UPLOAD_PROGRESS_CONCURRENCY', 6, 1);
const WARM_UP_FILES = 20;
const PASSED_THROUGH = ['JOB_EVENTS_POLL_MS', 'INGESTION_POLL_MS', 'INGESTION_JOBS_IN_FLIGHT', 'INGESTION_WORKER_THREADS'];
/** The longest the benchmark waits for the last completion before it gives up. */
const RUN_TIMEOUT_MILLISECONDS = 900_000;

interface ArrivedEvent {
  event: string;
  job_id: number;
  /** Date.now() when the client read the event. */
  arrivedAt: number;
}

interface Follower {
  arrived: ArrivedEvent[];
  /** Resolves once `completed` (or another end) has arrived for every job `isWatched` names, `count` of them. */
  allEnded(isWatched: (jobId: number) => boolean, count: number): Promise<number>;
  close(): void;
}

/** Follows the stream as the page's EventSource does, stamping each event the moment it is read. */
async function followJobEvents(server: ServerProcess, token: string, knowledgeBaseId: number): Promise<Follower> {
  const aborter = new AbortController();
  const response = await fetch(`${server.baseUrl}/api/knowledge-bases/${knowledgeBaseId}/jobs/events`, {
    headers: { authorization: `Bearer ${token}` },
    signal: aborter.signal,
  });
  if (response.status !== 200 || response.body === null) throw new Error(`the event stream was refused: ${response.status}`);
  const arrived: ArrivedEvent[] = [];
  let onEvent = (): void => {};
  void (async () => {
    let buffered = '';
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done || value === undefined) return;
      const arrivedAt = Date.now();
      buffered += value;
      for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
        const data = buffered
          .slice(0, end)
          .split('\n')
          .find((line) => line.startsWith('data: '));
        buffered = buffered.slice(end + 2);
        if (data === undefined) continue;
        const parsed = JSON.parse(data.slice(6)) as { event: string; job_id: number };
        arrived.push({ event: parsed.event, job_id: parsed.job_id, arrivedAt });
      }
      onEvent();
    }
  })();
  return {
    arrived,
    allEnded(isWatched, count) {
      const ended = new Set<number>();
      let read = 0;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${ended.size} of ${count} jobs ended`)), RUN_TIMEOUT_MILLISECONDS);
        onEvent = () => {
          for (; read < arrived.length; read += 1) {
            const { event, job_id: jobId, arrivedAt } = arrived[read]!;
            if (!isWatched(jobId) || !['completed', 'failed', 'cancelled'].includes(event)) continue;
            ended.add(jobId);
            if (ended.size === count) {
              clearTimeout(timer);
              resolve(arrivedAt);
            }
          }
        };
        onEvent();
      });
    },
    close: () => aborter.abort(),
  };
}

function markdownFile(index: number): string {
  return `# Note ${index}\n\nRiver ${index} carries water and sand to the sea.\n\n## Delta\n\nWhere river ${index} meets the sea, the sand settles into a delta.\n`;
}

async function uploadAll(server: ServerProcess, token: string, knowledgeBaseId: number, count: number, prefix: string): Promise<number[]> {
  const jobIds: number[] = [];
  await runPool(count, CONCURRENCY, async (index) => {
    const upload = await uploadDocument(server, token, knowledgeBaseId, `${prefix}-${index}.md`, markdownFile(index));
    if (upload.status !== 202) throw new Error(`upload ${index} answered ${upload.status}: ${upload.text}`);
    jobIds.push(upload.body.job_id as number);
  });
  return jobIds;
}

interface StoredJob {
  id: number;
  status: string;
  created_at: string;
  updated_at: string;
}

async function storedJobs(server: ServerProcess, token: string, knowledgeBaseId: number): Promise<Map<number, StoredJob>> {
  const jobs = new Map<number, StoredJob>();
  for (let offset = 0; ; offset += 200) {
    const page = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBaseId}/jobs?limit=200&offset=${offset}`, { token });
    if (page.status !== 200) throw new Error(`listing the jobs answered ${page.status}: ${page.text}`);
    for (const job of page.body.items as StoredJob[]) jobs.set(job.id, job);
    if (offset + 200 >= page.body.total) return jobs;
  }
}

interface Lags {
  median: number;
  p95: number;
  max: number;
  count: number;
}

function lagsOf(values: number[]): Lags {
  const sorted = ascending(values);
  return { median: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), max: sorted.at(-1) ?? 0, count: sorted.length };
}

interface RunFigures {
  name: string;
  documentsPerSecond: number;
  seconds: number;
  completedLag: Lags;
  queuedLag: Lags;
  ended: Record<string, number>;
}

async function measureRun(name: string, uploadTo: ServerProcess, followOn: ServerProcess): Promise<RunFigures> {
  const token = await loginAsAdmin(uploadTo);
  const created = await request(uploadTo, 'POST', '/api/knowledge-bases', { token, body: { name: 'Upload progress' } });
  if (created.status !== 201) throw new Error(`creating the knowledge base failed: ${created.text}`);
  const knowledgeBaseId = created.body.id as number;
  // Untimed: the worker threads start and the statements are prepared.
  const warmUpFollower = await followJobEvents(followOn, token, knowledgeBaseId);
  const warmUpJobs = new Set(await uploadAll(uploadTo, token, knowledgeBaseId, WARM_UP_FILES, 'warm-up'));
  await warmUpFollower.allEnded((jobId) => warmUpJobs.has(jobId), warmUpJobs.size);
  warmUpFollower.close();

  const follower = await followJobEvents(followOn, token, knowledgeBaseId);
  const started = Date.now();
  const jobIds = new Set<number>();
  const uploading = uploadAll(uploadTo, token, knowledgeBaseId, FILES, 'note').then((ids) => ids.forEach((id) => jobIds.add(id)));
  // Job ids are known only as each upload answers; an event may come first, so every job not of the warm-up counts.
  const lastEnded = await follower.allEnded((jobId) => !warmUpJobs.has(jobId), FILES);
  await uploading;
  follower.close();
  const stored = await storedJobs(uploadTo, token, knowledgeBaseId);
  const completedLags: number[] = [];
  const queuedLags: number[] = [];
  const ended: Record<string, number> = {};
  for (const jobId of jobIds) {
    const job = stored.get(jobId)!;
    ended[job.status] = (ended[job.status] ?? 0) + 1;
    const seen = (event: string) => follower.arrived.find((arrived) => arrived.job_id === jobId && arrived.event === event);
    const completed = seen('completed');
    if (job.status === 'completed' && completed) completedLags.push(completed.arrivedAt - Date.parse(job.updated_at));
    const queued = seen('queued');
    if (queued) queuedLags.push(queued.arrivedAt - Date.parse(job.created_at));
  }
  const seconds = (lastEnded - started) / 1000;
  return {
    name,
    documentsPerSecond: FILES / seconds,
    seconds,
    completedLag: lagsOf(completedLags),
    queuedLag: lagsOf(queuedLags),
    ended,
  };
}

function serverEnvironment(extra: Record<string, string>): Record<string, string> {
  const passed = Object.fromEntries(
    PASSED_THROUGH.flatMap((name) => {
      const value = process.env[name];
      return value === undefined || value === '' ? [] : [[name, value]];
    }),
  );
  return { ...passed, ...extra };
}

async function runOn(dialect: Dialect): Promise<RunFigures> {
  const database = await createTestDatabase(dialect);
  const processes: ServerProcess[] = [];
  try {
    const uploadTo = await startServerProcess(database, serverEnvironment({}));
    processes.push(uploadTo);
    if (dialect === 'sqlite') return await measureRun('SQLite, one process', uploadTo, uploadTo);
    const followOn = await startServerProcess(database, serverEnvironment({ INGESTION_IN_WEB: 'false' }));
    processes.push(followOn);
    return await measureRun('PostgreSQL, upload to A (ingests), follow on B', uploadTo, followOn);
  } finally {
    for (const started of processes) await started.kill();
    await database.drop();
  }
}

const milliseconds = (lags: Lags): string => `${lags.median} / ${lags.p95} / ${lags.max} ms (${lags.count})`;

describe('live ingestion progress while uploading many small files', () => {
  it('prints documents per second and how far the events lag behind the store', async () => {
    const loadBefore = os.loadavg()[0]!.toFixed(2);
    const rows: RunFigures[] = [];
    for (const dialect of TEST_DIALECTS) rows.push(await runOn(dialect));
    const loadAfter = os.loadavg()[0]!.toFixed(2);
    printTable(
      `${FILES} markdown files, ${CONCURRENCY} uploads at once, JOB_EVENTS_POLL_MS ${process.env.JOB_EVENTS_POLL_MS ?? 'default'}; ` +
        `${os.availableParallelism()} cores, load average ${loadBefore} before and ${loadAfter} after; lag median / p95 / max (jobs)`,
      [
        { label: 'run', width: 46 },
        { label: 'documents/s', width: 11 },
        { label: 'seconds', width: 7 },
        { label: 'completed lag', width: 28 },
        { label: 'queued lag', width: 28 },
        { label: 'jobs ended', width: 20 },
      ],
      rows.map((row) => [
        row.name,
        row.documentsPerSecond.toFixed(1),
        row.seconds.toFixed(1),
        milliseconds(row.completedLag),
        milliseconds(row.queuedLag),
        JSON.stringify(row.ended),
      ]),
    );
    for (const row of rows) expect([row.name, row.ended, row.completedLag.count]).toEqual([row.name, { completed: FILES }, FILES]);
  });
});
