/**
 * A JSON document's text is kept in the store and chunked, analysed and written milliseconds after
 * its claim, so its job goes from "Started." straight to its end: no progress step ("Reading the
 * file.", "Extracting the text.", "Indexing N chunks.") is written to its row in between, each of
 * which is a write of every job of the batch (on PostgreSQL a new version of each row). A file,
 * which takes long enough to read for progress to mean something, still gets every step, in order.
 * Every write of a job's message is recorded by a trigger in the store itself, on both stores.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/store/schema.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS, type Dialect } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const JSON_DOCUMENTS = 6;

/** Records each job's message every time a statement writes its row. */
async function recordJobMessages(db: Kysely<Database>, dialect: Dialect): Promise<void> {
  await sql`create table job_messages (id ${sql.raw(dialect === 'postgres' ? 'serial' : 'integer')} primary key, job_id integer not null, message text)`.execute(
    db,
  );
  if (dialect === 'sqlite') {
    await sql`create trigger job_messages_recorded after update on ingestion_jobs
      begin insert into job_messages (job_id, message) values (new.id, new.message); end`.execute(db);
    return;
  }
  await sql`create function job_message_recorded() returns trigger language plpgsql as $$
    begin insert into job_messages (job_id, message) values (new.id, new.message); return null; end $$`.execute(db);
  await sql`create trigger job_messages_recorded after update on ingestion_jobs for each row execute function job_message_recorded()`.execute(
    db,
  );
}

async function messagesOf(db: Kysely<Database>, jobId: number): Promise<string[]> {
  const rows = await sql<{ message: string | null }>`select message from job_messages where job_id = ${jobId} order by id`.execute(db);
  return rows.rows.map((row) => row.message ?? '');
}

describe.each(TEST_DIALECTS)('job progress writes on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let knowledgeBaseId: number;
  let db: Kysely<Database>;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { INGESTION_POLL_MS: '20' } });
    db = server.store.db;
    await recordJobMessages(db, dialect);
    token = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Progress writes' } });
    expect(created.status, created.text).toBe(201);
    knowledgeBaseId = created.body.id;
  }, 60_000);

  afterAll(async () => {
    await server.close();
  });

  it('ends the jobs of JSON documents without writing a progress step', async () => {
    const documents = Array.from({ length: JSON_DOCUMENTS }, (_, index) => ({
      text: `Basalt ${index} forms when lava cools quickly at the surface of the Earth.`,
      metadata: { title: `Basalt ${index}` },
    }));
    const posted = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBaseId}/documents`, { token, body: { documents } });
    expect(posted.status, posted.text).toBe(202);
    const jobIds = (posted.body.documents as Array<{ job_id: number }>).map((document) => document.job_id);
    expect(jobIds).toHaveLength(JSON_DOCUMENTS);
    for (const jobId of jobIds) {
      const job = await waitForJob(server, token, knowledgeBaseId, jobId);
      expect(job.status).toBe('completed');
      const messages = await messagesOf(db, jobId);
      expect(messages[0]).toBe('Started.');
      expect(messages.at(-1)).toBe('Indexed 1 chunks.');
      expect(messages.filter((message) => /^(Reading|Extracting|Indexing) /.test(message))).toEqual([]);
    }
    const searched = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBaseId}/query`, {
      token,
      body: { query_text: 'basalt lava', top_k: JSON_DOCUMENTS },
    });
    expect(searched.status, searched.text).toBe(200);
    expect(searched.body.results).toHaveLength(JSON_DOCUMENTS);
  });

  it('still writes every step of a file, in order', async () => {
    const markdown = '# Rocks\n\n## Basalt\n\nBasalt forms when lava cools quickly.\n\n## Granite\n\nGranite cools slowly underground.\n';
    const uploaded = await uploadDocument(server, token, knowledgeBaseId, 'rocks.md', markdown);
    expect(uploaded.status, uploaded.text).toBe(202);
    const jobId: number = uploaded.body.job_id;
    const job = await waitForJob(server, token, knowledgeBaseId, jobId);
    expect(job.status).toBe('completed');
    const steps = (await messagesOf(db, jobId)).filter((message, index, all) => message !== all[index - 1]);
    expect(steps[0]).toBe('Started.');
    expect(steps).toContain('Reading the file.');
    const reading = steps.indexOf('Reading the file.');
    expect(steps[reading + 1]).toBe('Extracting the text.');
    expect(steps[reading + 2]).toMatch(/^Indexing \d+ chunks\.$/);
    expect(steps.at(-1)).toMatch(/^Indexed \d+ chunks\.$/);
  });
});
