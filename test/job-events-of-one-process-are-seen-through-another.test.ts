/**
 * Proves, on PostgreSQL with two real server processes over one store, that the job event stream
 * is driven by the store and not by one process's memory: process A alone runs ingestion
 * (process B has INGESTION_IN_WEB=false), and a client following a knowledge base's jobs on B
 * sees the jobs A runs live: queued, running, completed with its chunk count; a failed one with
 * its reason. Also that B, stopping, ends the never-ending stream with `server_shutting_down`
 * and exits instead of waiting for the client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPdf } from './support/pdf-fixture.js';
import { openJobEvents } from './support/job-event-stream.js';
import { uploadDocument } from './support/knowledge-uploads.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { createTestDatabase, type TestDatabase } from './support/test-databases.js';
import { loginAsAdmin, request } from './support/test-server.js';

const eventsOf = (id: number): string => `/api/knowledge-bases/${id}/jobs/events`;
const ofJob = (jobId: number, name: string) => (event: any) => event.job_id === jobId && event.event === name;

describe('job events across two server processes on postgres', () => {
  let database: TestDatabase;
  let runner: ServerProcess;
  let follower: ServerProcess;
  let token: string;
  let knowledgeBase: number;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // A's runner looks for work every 300 ms, B reads the store every 50 ms: B sees each state a job passes through.
    runner = await startServerProcess(database, { INGESTION_IN_WEB: 'true', INGESTION_POLL_MS: '300' });
    follower = await startServerProcess(database, {
      INGESTION_IN_WEB: 'false',
      JOB_EVENTS_POLL_MS: '50',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      SHUTDOWN_STREAM_GRACE_MS: '200',
      SHUTDOWN_TIMEOUT_MS: '20000',
    });
    token = await loginAsAdmin(runner);
    const created = await request(runner, 'POST', '/api/knowledge-bases', { token, body: { name: 'Shared store' } });
    expect(created.status, created.text).toBe(201);
    knowledgeBase = created.body.id as number;
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(runner)?.kill();
    await possiblyUnset(follower)?.kill();
    await possiblyUnset(database)?.drop();
  });

  it('shows on process B, live, the job process A runs: queued, running, completed with its chunk count', async () => {
    const stream = await openJobEvents(follower, token, eventsOf(knowledgeBase));
    expect(stream.status).toBe(200);
    // Long enough (many sections to chunk and index) that B reads it at least once while A runs it.
    const sections = Array.from(
      { length: 300 },
      (_, index) => `## Chamber ${index}\n\nThe heart pumps blood through the body, beat ${index}.\n`,
    );
    const upload = await uploadDocument(runner, token, knowledgeBase, 'heart.md', `# Heart\n\n${sections.join('\n')}`);
    expect(upload.status, upload.text).toBe(202);
    const jobId: number = upload.body.job_id;
    const queued = await stream.next(ofJob(jobId, 'queued'));
    expect(queued).toMatchObject({ file_name: 'heart.md', percent: 0, chunk_count: null, reason: null });
    const running = await stream.next(ofJob(jobId, 'running'));
    expect(running.percent).toBeLessThan(100);
    const completed = await stream.next(ofJob(jobId, 'completed'));
    expect(completed).toMatchObject({ percent: 100, reason: null });
    expect(completed.chunk_count).toBeGreaterThan(0);
    // What the stream said is what the store holds, as either process's jobs endpoint tells it.
    const job = await request(follower, 'GET', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}`, { token });
    expect(job.body.status).toBe('completed');
    stream.close();
  }, 60_000);

  it('shows on process B the reason of a job that failed on process A', async () => {
    const stream = await openJobEvents(follower, token, eventsOf(knowledgeBase));
    const upload = await uploadDocument(runner, token, knowledgeBase, 'scan.pdf', buildPdf([{}]));
    expect(upload.status, upload.text).toBe(202);
    const failed = await stream.next(ofJob(upload.body.job_id, 'failed'));
    expect(failed.reason).toContain('no text layer');
    expect(failed.chunk_count).toBeNull();
    stream.close();
  }, 60_000);

  it('ends the stream with server_shutting_down when process B stops, and B exits', async () => {
    const stream = await openJobEvents(follower, token, eventsOf(knowledgeBase));
    expect(stream.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => follower.child.on('exit', (code) => resolve(code)));
    follower.child.kill('SIGTERM');
    const ending = await stream.next((event) => event.sse_event === 'error');
    expect(ending.error.code).toBe('server_shutting_down');
    await expect(stream.next(() => true)).rejects.toThrow('the event stream ended');
    expect(await exited).toBe(0);
  }, 60_000);
});
