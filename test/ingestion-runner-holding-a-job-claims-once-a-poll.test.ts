/**
 * An ingestion runner that holds a job while nothing else waits looks for work once every
 * INGESTION_POLL_MS, not back to back: it used to claim again at once after every empty claim for
 * as long as it held a job, hundreds of claim queries during one large document. It still takes
 * a job that arrives meanwhile without waiting for the one it holds, and finishes both.
 *
 * The claims are counted where the store's drivers run them (better-sqlite3's statements,
 * node-postgres's queries), in this process, where the test server runs.
 */
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatedEmbeddingServer, type GatedEmbeddingServer } from './fakes/gated-embedding-server.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const POLL_MILLISECONDS = 200;
const PROVIDER_KEY = 'sk-claims-once-a-poll-key-0123456789';
/** The claim's choice of jobs (chooseJobs), as each driver receives its text. */
const CLAIM_QUERY = /as "candidates" left join "kb_documents"/;

/** Counts the claim queries either driver runs until `stop` is called. */
function countClaimQueries(): { count: () => number; stop: () => void } {
  let claims = 0;
  const probe = new SqliteDatabase(':memory:');
  const statement = Object.getPrototypeOf(probe.prepare('select 1')) as { all: (...parameters: unknown[]) => unknown };
  probe.close();
  const sqliteAll = statement.all;
  statement.all = function (this: { source: string }, ...parameters: unknown[]) {
    if (CLAIM_QUERY.test(this.source)) claims += 1;
    return sqliteAll.apply(this, parameters);
  };
  const client = pg.Client.prototype as unknown as { query: (...parameters: unknown[]) => unknown };
  const postgresQuery = client.query;
  client.query = function (this: unknown, ...parameters: unknown[]) {
    const text = typeof parameters[0] === 'string' ? parameters[0] : (parameters[0] as { text?: string } | undefined)?.text;
    if (text !== undefined && CLAIM_QUERY.test(text)) claims += 1;
    return postgresQuery.apply(this, parameters);
  };
  return {
    count: () => claims,
    stop: () => {
      statement.all = sqliteAll;
      client.query = postgresQuery;
    },
  };
}

describe.each(TEST_DIALECTS)('an ingestion runner holding a job on %s', (dialect) => {
  let server: TestServer | undefined;
  let embeddings: GatedEmbeddingServer | undefined;
  let counter: ReturnType<typeof countClaimQueries> | undefined;

  afterEach(async () => {
    counter?.stop();
    embeddings?.open();
    await server?.close();
    await embeddings?.close();
    server = embeddings = counter = undefined;
  });

  it('looks for work once a poll while nothing waits, and still takes a job that arrives meanwhile', async () => {
    embeddings = await startGatedEmbeddingServer();
    server = await startTestServer(dialect, {
      environment: { INGESTION_POLL_MS: String(POLL_MILLISECONDS), OPENAI_API_KEY: PROVIDER_KEY, OPENAI_BASE_URL: embeddings.baseUrl },
    });
    const token = await loginAsAdmin(server);
    const knowledgeBase = async (body: Record<string, unknown>) => {
      const created = await request(server!, 'POST', '/api/knowledge-bases', { token, body });
      expect(created.status, created.text).toBe(201);
      return created.body.id as number;
    };
    const embedded = await knowledgeBase({ name: 'Held', embeddings: { connector: 'openai', model: 'text-embedding-3-small' } });
    const plain = await knowledgeBase({ name: 'Plain' });
    const held = await uploadDocument(server, token, embedded, 'held.md', '# Held\n\nLava cools into basalt.');
    expect(held.status, held.text).toBe(202);
    await embeddings.waitForRequests(1);

    counter = countClaimQueries();
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, POLL_MILLISECONDS * 5));
    const polls = (performance.now() - started) / POLL_MILLISECONDS;
    // Timers fire late, never early: at most one claim a poll interval, and one for a pass under way.
    expect(counter.count()).toBeLessThanOrEqual(Math.ceil(polls) + 1);
    expect(counter.count()).toBeGreaterThan(0);

    const arrived = await uploadDocument(server, token, plain, 'arrived.md', '# Arrived\n\nGranite forms deep underground.');
    expect(arrived.status, arrived.text).toBe(202);
    expect(await waitForJob(server, token, plain, arrived.body.job_id as number)).toMatchObject({ status: 'completed' });
    const stillHeld = await request(server, 'GET', `/api/knowledge-bases/${embedded}/jobs/${held.body.job_id as number}`, { token });
    expect(stillHeld.body).toMatchObject({ status: 'processing' });

    embeddings.open();
    expect(await waitForJob(server, token, embedded, held.body.job_id as number)).toMatchObject({ status: 'completed', attempts: 1 });
  });
});
