/**
 * Proves, on both stores, that the job event stream never passes over a job's start: the stream
 * reads where jobs stand every JOB_EVENTS_POLL_MS, so a job uploaded and claimed (here even
 * finished) between two reads was never seen `pending`. The stream still sends `queued` before the
 * job's next state, both for a new upload and for a failed job retried. A client waiting for a
 * job's `queued` (as the first draft of the two-process test did) would otherwise wait forever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPdf } from './support/pdf-fixture.js';
import { openJobEvents } from './support/job-event-stream.js';
import { uploadDocument } from './support/knowledge-uploads.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const ofJob = (jobId: number, name: string) => (event: any) => event.job_id === jobId && event.event === name;

describe.each(TEST_DIALECTS)('job events of jobs that move between two reads on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let knowledgeBase: number;

  beforeAll(async () => {
    // The runner claims work within 20 ms; the stream reads only every 1.5 s, so a small job ends between two reads.
    server = await startTestServer(dialect, { environment: { INGESTION_POLL_MS: '20', JOB_EVENTS_POLL_MS: '1500' } });
    token = await loginAsAdmin(server);
    knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Quick jobs' } })).body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('sends queued, then completed with its chunk count, for a job that started and ended between two reads', async () => {
    const stream = await openJobEvents(server, token, `/api/knowledge-bases/${knowledgeBase}/jobs/events`);
    const upload = await uploadDocument(server, token, knowledgeBase, 'quick.md', '# Quick\n\nRead at once.\n');
    expect(upload.status, upload.text).toBe(202);
    const jobId: number = upload.body.job_id;
    const completed = await stream.next(ofJob(jobId, 'completed'));
    expect(completed.chunk_count).toBeGreaterThan(0);
    const ofThisJob = stream.received.filter((event) => event.job_id === jobId).map((event) => event.event);
    expect(ofThisJob[0]).toBe('queued');
    expect(ofThisJob.at(-1)).toBe('completed');
    expect(stream.received.find(ofJob(jobId, 'queued'))).toMatchObject({
      file_name: 'quick.md',
      percent: 0,
      chunk_count: null,
      reason: null,
    });
    stream.close();
  });

  it('sends queued again for a failed job retried, before its next end', async () => {
    const stream = await openJobEvents(server, token, `/api/knowledge-bases/${knowledgeBase}/jobs/events`);
    const upload = await uploadDocument(server, token, knowledgeBase, 'scan.pdf', buildPdf([{}]));
    const jobId: number = upload.body.job_id;
    await stream.next(ofJob(jobId, 'failed'));
    const retried = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}/retry`, { token });
    expect(retried.status, retried.text).toBe(200);
    const failedAgain = await stream.next(ofJob(jobId, 'failed'));
    expect(failedAgain.reason).toContain('no text layer');
    // A read may still land while the job runs; its start and its end are what may never be passed over.
    const ofThisJob = stream.received.filter((event) => event.job_id === jobId && event.event !== 'running').map((event) => event.event);
    expect(ofThisJob).toEqual(['queued', 'failed', 'queued', 'failed']);
    stream.close();
  });
});
