/**
 * Proves, on PostgreSQL, that a runner claims the next batch of small texts while its last one
 * writes its index, and only a whole batch (INGESTION_TEXT_CLAIM_BATCH_MAX): a write is held mid-way
 * by a lock on the knowledge base's row (the index totals, which a write updates last), taken from
 * another connection. A `merino worker` process ingests, so every document is queued before its
 * first claim. Released, every job completes.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/store/store.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const BATCH = 8;
const POLL_MILLISECONDS = 20;
/** Polls of the runner to let pass: a runner that would claim more would have done so meanwhile. */
const POLLS_TO_WAIT = 15;

describe('a PostgreSQL runner with a batch of small texts writing', () => {
  let server: TestServer | undefined;
  let worker: ServerProcess | undefined;
  let locker: Store | undefined;

  afterEach(async () => {
    await worker?.kill();
    await locker?.close();
    await server?.close();
    server = worker = locker = undefined;
  });

  async function processingCount(): Promise<number> {
    const rows = await server!.store.db.selectFrom('ingestion_jobs').select('id').where('status', '=', 'processing').execute();
    return rows.length;
  }

  /** Waits until `count` jobs are processing, then that many polls more, and checks it stayed so. */
  async function expectProcessingToSettleAt(count: number): Promise<void> {
    await expect.poll(processingCount, { timeout: 30_000, interval: POLL_MILLISECONDS }).toBe(count);
    await new Promise((resolve) => setTimeout(resolve, POLLS_TO_WAIT * POLL_MILLISECONDS));
    expect(await processingCount()).toBe(count);
  }

  it('claims the next whole batch while one writes, and none while fewer than a batch wait', async () => {
    const environment = {
      INGESTION_POLL_MS: String(POLL_MILLISECONDS),
      INGESTION_JOBS_IN_FLIGHT: String(BATCH),
      INGESTION_TEXT_CLAIM_BATCH_MAX: String(BATCH),
    };
    server = await startTestServer('postgres', { environment: { ...environment, INGESTION_IN_WEB: 'false' } });
    const token = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Held writes' } });
    expect(created.status, created.text).toBe(201);
    const knowledgeBaseId = created.body.id as number;
    const upload = async (count: number, from: number) => {
      const documents = Array.from({ length: count }, (_, index) => ({ text: `Basalt sample ${from + index} cooled on the sea floor.` }));
      const posted = await request(server!, 'POST', `/api/knowledge-bases/${knowledgeBaseId}/documents`, { token, body: { documents } });
      expect(posted.status, posted.text).toBe(202);
    };

    // Another connection holds the row that every write of this index updates last.
    locker = await openStore({ databaseUrl: server.database.databaseUrl, dataDirectory: server.database.dataDirectory, poolSize: 1 });
    let releaseLock!: () => void;
    const lockReleased = new Promise<void>((resolve) => (releaseLock = resolve));
    let lockTaken!: () => void;
    const lockHeld = new Promise<void>((resolve) => (lockTaken = resolve));
    const holding = locker.db.transaction().execute(async (transaction) => {
      await sql`select id from knowledge_bases where id = ${knowledgeBaseId} for no key update`.execute(transaction);
      lockTaken();
      await lockReleased;
    });
    await lockHeld;

    try {
      // A batch and a half: the first batch claims and writes (held), the rest is less than a batch.
      await upload(BATCH + BATCH / 2, 0);
      worker = await startServerProcess(server.database, environment, ['worker']);
      await expectProcessingToSettleAt(BATCH);

      // A whole batch waits now: it is claimed while the first still writes, and no third.
      await upload(BATCH + BATCH / 2, BATCH + BATCH / 2);
      await expectProcessingToSettleAt(2 * BATCH);
    } finally {
      releaseLock();
      await holding;
    }

    const total = 3 * BATCH;
    await expect
      .poll(
        async () => {
          const rows = await server!.store.db.selectFrom('ingestion_jobs').select('id').where('status', '=', 'completed').execute();
          return rows.length;
        },
        { timeout: 60_000, interval: 50 },
      )
      .toBe(total);
    const chunks = await server.store.db
      .selectFrom('kb_chunks')
      .where('knowledge_base_id', '=', knowledgeBaseId)
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .executeTakeFirstOrThrow();
    expect(Number(chunks.count)).toBe(total);
  });
});
