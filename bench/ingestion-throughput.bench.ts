/**
 * Ingestion throughput over the HTTP API, on a real server (SQLite by default), with text from a
 * real BEIR data set (DBpedia-Entity, 5,000 abstracts; see support/beir-data.ts):
 *
 *  1. Short JSON documents: INGEST_JSON_DOCUMENTS abstracts posted as `{"documents": [{text, metadata}]}`
 *     to `POST /api/knowledge-bases/{id}/documents` in batches of INGEST_JSON_BATCH (at most
 *     KB_JSON_DOCUMENTS_MAX, 100), one batch after another, as a script importing a collection does.
 *  2. Markdown files: INGEST_MARKDOWN_FILES files uploaded one by one as multipart/form-data, each
 *     with INGEST_ABSTRACTS_PER_FILE abstracts (a `#` title, one `##` heading per abstract).
 *  3. Larger Markdown files, the same way: INGEST_LARGE_MARKDOWN_FILES files of
 *     INGEST_LARGE_ABSTRACTS_PER_FILE abstracts each (so MB/s is not only the cost of a request;
 *     INGEST_LARGE_MARKDOWN_FILES=0 leaves this run out).
 *
 * INGEST_SERVER=process runs the server as a deployment does, in a process of its own from the built
 * JavaScript (`merino serve`, its worker threads likewise), and this process is only the client.
 * By default the server shares this process: its event loop then also runs the client's requests
 * and polls, and its worker threads run from the TypeScript sources, so each thread that starts
 * compiles its modules first.
 *
 * Every run is measured INGEST_ROUNDS times (2), all runs of a round before the next round, each
 * into a knowledge base of its own. The first round of a fresh process also pays for V8 compiling
 * the paths it takes (the server's, the client's and the worker threads'): 4,900 JSON documents took
 * 3.0 to 3.8 CPU seconds in the first round and 1.6 to 2.3 in the second, on both stores. The
 * gateway benchmark warms its servers up with 1,500 requests for the same reason; here the first
 * round's row stays, since a server that has just started ingests like that.
 *
 * The clock runs from the first request until every job of the knowledge base has ended, which
 * the benchmark learns by counting ended jobs in the store, every 20 ms near the end and less
 * often while many remain (the list routes page, and a poll per job would load the server it
 * measures). Printed: documents per second, the seconds the posting alone took, MB of text (JSON texts, Markdown files) per second, the CPU seconds the process (server, client and worker threads alike)
 * spent meanwhile with documents per CPU second (a figure a machine shared with other work
 * disturbs less than the wall clock), on PostgreSQL the CPU seconds its server processes for the
 * benchmark's database spent (read from /proc, so only where the cluster runs on this machine;
 * a connection opened and closed within a run is missed), the CPU time of the server's event-loop thread alone per document
 * (with the client's work on it too when they share this process: on one server, that thread is what limits how fast documents
 * go in), the event loop's delay while it ran (99th percentile and most, in ms: how long another request could have waited
 * behind the ingestion; measured only when the server shares this process), and how the jobs ended. A few untimed documents warm the server up
 * first (the worker threads start, the statements are prepared). It never passes or fails on a
 * time; it checks only that every job completed.
 *
 *   npm run bench -- bench/ingestion-throughput.bench.ts
 *   (INGEST_ROUNDS=2 INGEST_JSON_DOCUMENTS=1000 INGEST_JSON_BATCH=100 INGEST_MARKDOWN_FILES=200 INGEST_ABSTRACTS_PER_FILE=5
 *    INGEST_LARGE_MARKDOWN_FILES=40 INGEST_LARGE_ABSTRACTS_PER_FILE=50 INGEST_BENCH_DIALECT=postgres INGEST_SERVER=process
 *    change the work; the server's own INGESTION_* settings pass through)
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { uploadDocument } from '../test/support/knowledge-uploads.js';
import { openStore, type Store } from '../src/store/store.js';
import { startServerProcess, type ServerProcess } from '../test/support/server-process.js';
import { createTestDatabase, type Dialect, type TestDatabase } from '../test/support/test-databases.js';
import { loginAsAdmin, request, startTestServer } from '../test/support/test-server.js';
import { readJsonLines, type CorpusDocument } from './support/beir-data.js';
import { cpuMilliseconds, cpuMillisecondsByProcess, cpuSpentMilliseconds } from './support/load-measures.js';
import { printTable, wholeNumberSetting } from './support/measure.js';

const JSON_DOCUMENTS = wholeNumberSetting('INGEST_JSON_DOCUMENTS', 1_000, 1);
const JSON_BATCH = wholeNumberSetting('INGEST_JSON_BATCH', 100, 1);
const MARKDOWN_FILES = wholeNumberSetting('INGEST_MARKDOWN_FILES', 200, 1);
const ABSTRACTS_PER_FILE = wholeNumberSetting('INGEST_ABSTRACTS_PER_FILE', 5, 1);
const LARGE_MARKDOWN_FILES = wholeNumberSetting('INGEST_LARGE_MARKDOWN_FILES', 40, 0);
const LARGE_ABSTRACTS_PER_FILE = wholeNumberSetting('INGEST_LARGE_ABSTRACTS_PER_FILE', 50, 1);
const WORKER_PROCESSES = wholeNumberSetting('INGEST_WORKER_PROCESSES', 0, 0);
const ROUNDS = wholeNumberSetting('INGEST_ROUNDS', 2, 1);
const WARM_UP_DOCUMENTS = 20;
const DIALECT: Dialect = process.env.INGEST_BENCH_DIALECT === 'postgres' ? 'postgres' : 'sqlite';
const SERVER_IN_ITS_OWN_PROCESS = process.env.INGEST_SERVER === 'process';
/** The longest one run may take before the benchmark gives up on it. */
const RUN_TIMEOUT_MILLISECONDS = 900_000;
/**
 * The count shares the server's event loop and reads every job row of the knowledge base (0.9 ms
 * at 4,900 jobs): polled every 20 ms it took 3% of a run. So it waits about the time the jobs left
 * would take at 5,000 a second, between 20 and 250 ms: rarely while many remain, every 20 ms near
 * the end, where the wait decides how late the end is seen.
 */
function pollMilliseconds(remaining: number): number {
  return Math.min(250, Math.max(20, remaining / 5));
}

/** Settings this process's environment passes on to the server: ingestion's and the store's. */
const PASSED_SETTING_PREFIXES = ['INGESTION_', 'POSTGRES_', 'SQLITE_'];

/** The server's settings given to this process (INGESTION_*, POSTGRES_*, SQLITE_*), so runs can compare them. */
function ingestionEnvironment(): Record<string, string> {
  const passed = Object.entries(process.env).filter(
    (entry): entry is [string, string] => PASSED_SETTING_PREFIXES.some((prefix) => entry[0].startsWith(prefix)) && entry[1] !== undefined,
  );
  return { INGESTION_POLL_MS: '20', ...Object.fromEntries(passed) };
}

/** The server measured, and the store as this process reads it. */
interface Target {
  baseUrl: string;
  /** The server's own handle when it shares this process; otherwise a connection of the client's. */
  store: Store;
  database: TestDatabase;
  /** The server's process, when it runs in one of its own. */
  serverProcess?: ServerProcess;
  close(): Promise<void>;
}

async function startTarget(environment: Record<string, string>): Promise<Target> {
  if (!SERVER_IN_ITS_OWN_PROCESS) {
    const server = await startTestServer(DIALECT, { environment });
    return { baseUrl: server.baseUrl, store: server.store, database: server.database, close: () => server.close() };
  }
  const database = await createTestDatabase(DIALECT, { migrated: true });
  const serverProcess = await startServerProcess(database, environment);
  const store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2, migrate: false });
  return {
    baseUrl: serverProcess.baseUrl,
    store,
    database,
    serverProcess,
    async close() {
      await serverProcess.kill();
      await store.close();
      await database.drop();
    },
  };
}

interface JobCounts {
  ended: number;
  completed: number;
}

async function jobCounts(target: Target, knowledgeBaseId: number): Promise<JobCounts> {
  const row = await target.store.db
    .selectFrom('ingestion_jobs')
    .select([
      sql<number | string | null>`sum(case when status in ('completed', 'failed', 'cancelled') then 1 else 0 end)`.as('ended'),
      sql<number | string | null>`sum(case when status = 'completed' then 1 else 0 end)`.as('completed'),
    ])
    .where('knowledge_base_id', '=', knowledgeBaseId)
    .executeTakeFirstOrThrow();
  return { ended: Number(row.ended ?? 0), completed: Number(row.completed ?? 0) };
}

async function untilEnded(target: Target, knowledgeBaseId: number, count: number): Promise<JobCounts> {
  const deadline = Date.now() + RUN_TIMEOUT_MILLISECONDS;
  for (;;) {
    const counts = await jobCounts(target, knowledgeBaseId);
    if (counts.ended >= count) return counts;
    if (Date.now() > deadline) throw new Error(`${counts.ended} of ${count} jobs ended after ${RUN_TIMEOUT_MILLISECONDS} ms`);
    await new Promise((resolve) => setTimeout(resolve, pollMilliseconds(count - counts.ended)));
  }
}

async function createKnowledgeBase(server: { baseUrl: string }, token: string, name: string): Promise<number> {
  const created = await request(server, 'POST', '/api/knowledge-bases', { token, body: { name } });
  expect(created.status).toBe(201);
  return created.body.id as number;
}

async function postJsonDocuments(
  server: { baseUrl: string },
  token: string,
  knowledgeBaseId: number,
  abstracts: readonly CorpusDocument[],
): Promise<number> {
  let bytes = 0;
  for (let start = 0; start < abstracts.length; start += JSON_BATCH) {
    const documents = abstracts
      .slice(start, start + JSON_BATCH)
      .map((abstract) => ({ text: abstract.text, metadata: { title: abstract.title, source_id: abstract._id } }));
    bytes += documents.reduce((total, document) => total + Buffer.byteLength(document.text), 0);
    const posted = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBaseId}/documents`, { token, body: { documents } });
    expect(posted.status, posted.text).toBe(202);
  }
  return bytes;
}

function markdownFile(abstracts: readonly CorpusDocument[], part: number): string {
  return `# DBpedia abstracts, part ${part}\n\n${abstracts.map((abstract) => `## ${abstract.title}\n\n${abstract.text}\n`).join('\n')}`;
}

/** How many Markdown files to upload, and how many abstracts each holds. */
interface MarkdownShape {
  files: number;
  abstractsPerFile: number;
}

async function uploadMarkdownFiles(
  server: { baseUrl: string },
  token: string,
  knowledgeBaseId: number,
  abstracts: readonly CorpusDocument[],
  shape: MarkdownShape,
): Promise<number> {
  let bytes = 0;
  for (let part = 0; part < shape.files; part += 1) {
    const start = (part * shape.abstractsPerFile) % Math.max(1, abstracts.length - shape.abstractsPerFile);
    const content = markdownFile(abstracts.slice(start, start + shape.abstractsPerFile), part + 1);
    bytes += Buffer.byteLength(content);
    const uploaded = await uploadDocument(server, token, knowledgeBaseId, `dbpedia-part-${part + 1}.md`, content);
    expect(uploaded.status, uploaded.text).toBe(202);
  }
  return bytes;
}

interface Run {
  name: string;
  documents: number;
  /** Posts the documents; answers the bytes of text posted. */
  post: (server: { baseUrl: string }, token: string, knowledgeBaseId: number) => Promise<number>;
}

/**
 * CPU milliseconds each PostgreSQL server process of the store's database has used so far, by pid;
 * empty on SQLite, or where the processes are not this machine's to read.
 */
async function storeCpuMilliseconds(store: Store): Promise<Map<number, number>> {
  if (store.dialect !== 'postgres') return new Map();
  const backends = await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database()`.execute(store.db);
  return cpuMillisecondsByProcess(backends.rows.map(({ pid }) => pid));
}

/** What the store's server processes spent between two readings, in seconds; "-" where none could be read. */
function storeCpuSpent(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): string {
  return after.size === 0 ? '-' : (cpuSpentMilliseconds(before, after) / 1000).toFixed(2);
}

/** CPU seconds the server's own process (when it has one) and the worker processes have used so far. */
function otherProcessesCpuSeconds(target: Target, workers: readonly ServerProcess[]): number {
  const processes = target.serverProcess ? [target.serverProcess, ...workers] : workers;
  return processes.reduce((total, other) => total + cpuMilliseconds(other.child.pid!), 0) / 1000;
}

/** CPU milliseconds of the server's event-loop thread so far (a process's main thread has the process's id). */
function serverLoopCpuMilliseconds(target: Target): number {
  const pid = target.serverProcess?.child.pid ?? process.pid;
  return cpuMilliseconds(pid, pid);
}

async function measure(target: Target, token: string, run: Run, workers: readonly ServerProcess[]): Promise<string[]> {
  const knowledgeBaseId = await createKnowledgeBase(target, token, run.name);
  const storeCpuBefore = await storeCpuMilliseconds(target.store);
  // When the server shares this process, how late its event loop ran while ingesting is how long
  // any other request (a chat, a page) could have waited behind the ingestion's work.
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
  const cpuBefore = process.cpuUsage();
  const mainThreadBefore = serverLoopCpuMilliseconds(target);
  const othersCpuBefore = otherProcessesCpuSeconds(target, workers);
  const started = performance.now();
  const bytes = await run.post(target, token, knowledgeBaseId);
  const posted = (performance.now() - started) / 1000;
  const counts = await untilEnded(target, knowledgeBaseId, run.documents);
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const mainThreadSeconds = (serverLoopCpuMilliseconds(target) - mainThreadBefore) / 1000;
  loopDelay.disable();
  const othersCpu = otherProcessesCpuSeconds(target, workers) - othersCpuBefore;
  const cpuSeconds = (cpu.user + cpu.system) / 1_000_000 + othersCpu;
  const storeCpu = storeCpuSpent(storeCpuBefore, await storeCpuMilliseconds(target.store));
  const loopDelayMilliseconds = (nanoseconds: number) => (target.serverProcess ? '-' : (nanoseconds / 1_000_000).toFixed(0));
  expect(counts.completed, `${run.name}: every job completes`).toBe(run.documents);
  return [
    run.name,
    String(run.documents),
    posted.toFixed(2),
    seconds.toFixed(2),
    (run.documents / seconds).toFixed(1),
    (bytes / 1_000_000 / seconds).toFixed(2),
    cpuSeconds.toFixed(2),
    (run.documents / cpuSeconds).toFixed(1),
    storeCpu,
    ((mainThreadSeconds * 1000) / run.documents).toFixed(3),
    loopDelayMilliseconds(loopDelay.percentile(99)),
    loopDelayMilliseconds(loopDelay.max),
    `${counts.completed} completed`,
  ];
}

describe('ingestion throughput over HTTP', () => {
  it(
    'prints documents per second for short JSON documents and for Markdown files',
    async () => {
      const corpus = readJsonLines<CorpusDocument>('corpus.jsonl').filter((abstract) => abstract.text.trim() !== '');
      const environment = ingestionEnvironment();
      // With worker processes, this process serves HTTP only and they ingest (`merino worker`).
      const serverEnvironment = WORKER_PROCESSES > 0 ? { ...environment, INGESTION_IN_WEB: 'false' } : environment;
      const target = await startTarget(serverEnvironment);
      const workers: ServerProcess[] = [];
      try {
        for (let index = 0; index < WORKER_PROCESSES; index += 1)
          workers.push(await startServerProcess(target.database, environment, ['worker']));
        const token = await loginAsAdmin(target);
        const warmUp = await createKnowledgeBase(target, token, 'Warm-up');
        await postJsonDocuments(target, token, warmUp, corpus.slice(-WARM_UP_DOCUMENTS));
        await untilEnded(target, warmUp, WARM_UP_DOCUMENTS);

        const runs: Run[] = [
          {
            name: `${JSON_DOCUMENTS} short JSON documents, ${JSON_BATCH} per request`,
            documents: JSON_DOCUMENTS,
            post: (target, bearer, id) => postJsonDocuments(target, bearer, id, corpus.slice(0, JSON_DOCUMENTS)),
          },
          ...[
            { files: MARKDOWN_FILES, abstractsPerFile: ABSTRACTS_PER_FILE },
            { files: LARGE_MARKDOWN_FILES, abstractsPerFile: LARGE_ABSTRACTS_PER_FILE },
          ]
            .filter((shape) => shape.files > 0)
            .map((shape) => ({
              name: `${shape.files} Markdown files of ${shape.abstractsPerFile} abstracts, uploaded`,
              documents: shape.files,
              post: (server: { baseUrl: string }, bearer: string, id: number) => uploadMarkdownFiles(server, bearer, id, corpus, shape),
            })),
        ];
        const rows: string[][] = [];
        for (let round = 1; round <= ROUNDS; round += 1)
          for (const run of runs) {
            rows.push(await measure(target, token, { ...run, name: `${run.name}, round ${round}` }, workers));
            // Each figure as soon as it is known: a slow run still leaves the ones before it.
            console.log(`ingestion throughput: ${rows.at(-1)!.join(' | ')}`);
          }
        printTable(
          `Ingestion over HTTP on ${DIALECT}, the server ${SERVER_IN_ITS_OWN_PROCESS ? 'in a process of its own (built)' : 'in this process'}, ${WORKER_PROCESSES === 0 ? 'ingested by the server' : `ingested by ${WORKER_PROCESSES} worker processes`} (settings: ${JSON.stringify(environment)})`,
          [
            { label: 'run', width: 61 },
            { label: 'documents', width: 10 },
            { label: 'posting s', width: 10 },
            { label: 'total s', width: 9 },
            { label: 'documents/s', width: 12 },
            { label: 'MB/s', width: 6 },
            { label: 'CPU s', width: 8 },
            { label: 'per CPU s', width: 10 },
            { label: 'store CPU s', width: 12 },
            { label: 'loop CPU ms/doc', width: 16 },
            { label: 'loop p99 ms', width: 12 },
            { label: 'loop max ms', width: 12 },
            { label: 'jobs', width: 15 },
          ],
          rows,
        );
      } finally {
        for (const worker of workers) await worker.kill();
        await target.close();
      }
    },
    RUN_TIMEOUT_MILLISECONDS * 3,
  );
});
