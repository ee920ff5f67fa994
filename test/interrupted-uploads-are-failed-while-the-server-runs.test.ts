/**
 * Proves on both dialects that uploads cut short by `kill -9` never stay pending: a real server
 * process is killed during bursts of knowledge-base uploads and restarted at once, round after
 * round, while a neighbour process shares the store and the data folder; once the last restart is
 * up (and stays up), no document is left pending without a job (each interrupted one is failed
 * with "the upload was interrupted", and uploading the same file again works) and no staged file
 * older than UPLOAD_LEFTOVER_GRACE_MS is left, while the neighbour's upload in progress survives
 * every sweep and completes. And that, with the periodic sweep, a pending document is failed as
 * soon as the process holding it is known to be gone (dead on this machine, or its lease lapsed),
 * never while its holder lives.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UPLOAD_LEFTOVER_SWEEP } from '../src/process/crash-leftovers.js';
import { readPeriodicRun } from '../src/store/periodic-runs-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { leaseHoldersOfEveryKind } from './support/lease-holders.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { startSlowUpload } from './support/slow-upload.js';
import { startedProcesses } from './support/started-processes.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, request, startTestServer } from './support/test-server.js';

// Longer than a restart takes, so what the last kill leaves is younger than the grace when the last server starts.
const GRACE_MILLISECONDS = 15_000;
const ENVIRONMENT = {
  // The checks look at the local driver's files on disk; the other drivers keep the same contract.
  STORAGE_URL: 'local',
  INGESTION_POLL_MS: '20',
  UPLOAD_LEFTOVER_GRACE_MS: String(GRACE_MILLISECONDS),
  UPLOAD_SWEEP_INTERVAL_MS: '300',
};
const ROUNDS = 4;
const UPLOAD_LANES = 6;
const SETTLE_TIMEOUT_MILLISECONDS = 60_000;
const INTERRUPTED = 'the upload was interrupted';
const STAGED_NAME = /^(?:\.upload-[0-9a-f]{32}\.part|[0-9a-f]{32}\.upload)$/;

function documentText(round: number, index: number): string {
  return `# Round ${round}, document ${index}\n\n${'Basalt is a volcanic rock that cools quickly. '.repeat(200)}`;
}

/** Uploads documents one after another on each lane until the process dies; resolves with how many were accepted. */
function uploadUntilKilled(server: ServerProcess, token: string, knowledgeBase: number, round: number, accepted: { count: number }) {
  const lanes = Array.from({ length: UPLOAD_LANES }, async (_, lane) => {
    for (let index = 0; ; index += 1) {
      const name = `round-${round}-lane-${lane}-${index}.md`;
      const answer = await uploadDocument(server, token, knowledgeBase, name, documentText(round, index)).catch(() => undefined);
      if (answer === undefined) return;
      if (answer.status === 202) accepted.count += 1;
    }
  });
  return Promise.all(lanes);
}

async function waitUntil(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MILLISECONDS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`never settled: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function temporaryFiles(folder: string): Promise<string[]> {
  return (await readdir(folder).catch(() => [] as string[])).filter((name) => name.startsWith('.upload-'));
}

/** Staged and temporary upload files in the folder older than the grace period. */
async function staleStagedFiles(folder: string): Promise<string[]> {
  const stale: string[] = [];
  const cutoff = Date.now() - GRACE_MILLISECONDS;
  for (const name of await readdir(folder).catch(() => [] as string[])) {
    if (!STAGED_NAME.test(name)) continue;
    const modified = await stat(path.join(folder, name)).then(
      (found) => found.mtimeMs,
      () => undefined,
    );
    if (modified !== undefined && modified < cutoff) stale.push(name);
  }
  return stale;
}

async function pendingWithoutJob(store: Store, knowledgeBase: number): Promise<number[]> {
  const rows = await store.db
    .selectFrom('kb_documents')
    .select('id')
    .where('knowledge_base_id', '=', knowledgeBase)
    .where('status', '=', 'pending')
    .where((eb) =>
      eb.not(eb.exists(eb.selectFrom('ingestion_jobs').select('id').whereRef('ingestion_jobs.document_id', '=', 'kb_documents.id'))),
    )
    .execute();
  return rows.map((row) => row.id);
}

function storeOf(database: TestDatabase): Promise<Store> {
  return openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
}

describe.each(TEST_DIALECTS)('uploads interrupted by kill -9 on %s', (dialect) => {
  let database: TestDatabase | undefined;
  let store: Store | undefined;
  const started = startedProcesses();
  const { processes, servers, children } = started;

  afterEach(async () => {
    await started.end();
    await store?.close();
    await database?.drop();
    database = store = undefined;
  });

  it('end, after rounds of kills and quick restarts, with none pending without a job and no stale staged file, while a neighbour upload survives', async () => {
    database = await createTestDatabase(dialect);
    const neighbour = await startServerProcess(database, ENVIRONMENT);
    processes.push(neighbour);
    const token = (await request(neighbour, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body
      .token as string;
    const knowledgeBase = (await request(neighbour, 'POST', '/api/knowledge-bases', { token, body: { name: 'Crash site' } })).body
      .id as number;
    const knowledgeFolder = path.join(database.dataDirectory, 'knowledge', String(knowledgeBase));
    const documentsUrl = `/api/knowledge-bases/${knowledgeBase}/documents`;

    // The neighbour receives an upload slowly through every round, writing its file more often than the grace period.
    const neighbourUpload = startSlowUpload(neighbour.baseUrl, documentsUrl, token, 'neighbour.md', '# Neighbour\n\nStill arriving ');
    const trickle = setInterval(() => neighbourUpload.send('and more '), 500);

    let accepted = 0;
    const cutParts: string[] = [];
    let current = await startServerProcess(database, ENVIRONMENT);
    for (let round = 1; round <= ROUNDS; round += 1) {
      const counted = { count: 0 };
      const lanes = uploadUntilKilled(current, token, knowledgeBase, round, counted);
      // Killed after a number of accepted uploads that grows with the round, so the kill lands at different steps.
      await waitUntil(async () => counted.count >= 2 + round * 3, `round ${round} accepting uploads`);
      // Two uploads are mid-body when the kill comes, so each round surely leaves temporary files younger than the grace.
      const partsBefore = await temporaryFiles(knowledgeFolder);
      startSlowUpload(current.baseUrl, documentsUrl, token, `cut-${round}-a.md`, '# Cut\n\nThe first half ');
      startSlowUpload(current.baseUrl, documentsUrl, token, `cut-${round}-b.md`, '# Cut\n\nThe first half ');
      await waitUntil(
        async () => (await temporaryFiles(knowledgeFolder)).filter((name) => !partsBefore.includes(name)).length >= 2,
        `round ${round} receiving the cut uploads`,
      );
      cutParts.push(...(await temporaryFiles(knowledgeFolder)).filter((name) => !partsBefore.includes(name)));
      await current.kill();
      await lanes;
      accepted += counted.count;
      current = await startServerProcess(database, ENVIRONMENT);
    }
    processes.push(current);

    store = await storeOf(database);
    const settledStore = store;
    await waitUntil(
      async () =>
        (await pendingWithoutJob(settledStore, knowledgeBase)).length === 0 &&
        (await temporaryFiles(knowledgeFolder)).every((name) => !cutParts.includes(name)),
      'no pending document without a job, and the files of the cut uploads gone',
    );
    // A file the last round staged just before the kill can cross the grace between two sweeps (UPLOAD_SWEEP_INTERVAL_MS
    // apart), so the check gives the sweeps that still run a bounded time to remove every staged file older than the grace.
    await waitUntil(async () => (await staleStagedFiles(knowledgeFolder)).length === 0, 'no staged file older than the grace');
    // The same server process is still up: the restart and its periodic sweep did it, not a later start.
    expect(current.child.exitCode).toBeNull();
    expect((await request(current, 'GET', '/healthz')).status).toBe(200);

    const interrupted = await settledStore.db
      .selectFrom('kb_documents')
      .select(['id', 'file_name', 'error'])
      .where('knowledge_base_id', '=', knowledgeBase)
      .where('status', '=', 'failed')
      // A job killed during processing too often fails with its own reason; these are the uploads that never got a job.
      .where((eb) =>
        eb.not(eb.exists(eb.selectFrom('ingestion_jobs').select('id').whereRef('ingestion_jobs.document_id', '=', 'kb_documents.id'))),
      )
      .execute();
    for (const document of interrupted) {
      expect(document.error).toBe(INTERRUPTED);
      // Its bytes are gone: the teacher uploads the file again.
      expect((await readdir(knowledgeFolder)).includes(String(document.id))).toBe(false);
    }
    process.stdout.write(
      `${dialect}: ${ROUNDS} kills, ${accepted} uploads accepted, ${interrupted.length} documents marked "${INTERRUPTED}"\n`,
    );

    // Retrying is uploading the same file name again.
    const retried = await uploadDocument(current, token, knowledgeBase, interrupted[0]?.file_name ?? 'cut-1-a.md', documentText(0, 0));
    expect(retried.status).toBe(202);
    expect((await waitForJob(current, token, knowledgeBase, retried.body.job_id, 60_000)).status).toBe('completed');

    // The neighbour's upload lived through every sweep and completes.
    clearInterval(trickle);
    const finished = await neighbourUpload.finish('and its end.');
    expect(finished.status).toBe(202);
    expect((await waitForJob(neighbour, token, knowledgeBase, finished.body.job_id, 60_000)).status).toBe('completed');
  }, 300_000);

  it('fails a pending document as soon as its holder is gone or its lease lapsed, and never one whose holder lives', async () => {
    const server = await startTestServer(dialect, { environment: ENVIRONMENT });
    servers.push(server);
    const db = server.store.db;
    const knowledgeBase = (
      await request(server, 'POST', '/api/knowledge-bases', { token: await loginToken(server), body: { name: 'Held' } })
    ).body.id as number;
    const held = await leaseHoldersOfEveryKind(children);
    const ids: Record<string, number> = {};
    for (const [name, hold] of Object.entries(held)) {
      const now = new Date().toISOString();
      const row = await db
        .insertInto('kb_documents')
        .values({
          knowledge_base_id: knowledgeBase,
          file_name: `${name}.md`,
          content_type: 'text/markdown',
          size_bytes: 10,
          source_url: null,
          status: 'pending',
          error: null,
          chunk_count: 0,
          page_count: null,
          metadata: '{}',
          upload_owner: hold.owner,
          upload_lease_expires_at: hold.leaseExpiresAt,
          created_at: now,
          updated_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      ids[name] = row.id;
    }
    const statusOf = async (name: string) =>
      db.selectFrom('kb_documents').select(['status', 'error']).where('id', '=', ids[name]!).executeTakeFirstOrThrow();

    // Two periodic passes after the rows were written: the first may have begun before them.
    const before = (await readPeriodicRun(db, UPLOAD_LEFTOVER_SWEEP))?.runCount ?? 0;
    await waitUntil(async () => ((await readPeriodicRun(db, UPLOAD_LEFTOVER_SWEEP))?.runCount ?? 0) >= before + 2, 'two periodic sweeps');
    expect(await statusOf('deadHere')).toEqual({ status: 'failed', error: INTERRUPTED });
    expect(await statusOf('lapsedElsewhere')).toEqual({ status: 'failed', error: INTERRUPTED });
    expect(await statusOf('liveHere')).toEqual({ status: 'pending', error: null });
    expect(await statusOf('liveElsewhere')).toEqual({ status: 'pending', error: null });
  }, 120_000);
});

async function loginToken(server: { baseUrl: string }): Promise<string> {
  return (await request(server, 'POST', '/api/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } })).body
    .token as string;
}
