/**
 * Proves, on both stores over loopback HTTP, that `GET /api/knowledge-bases/{id}/jobs/events`
 * streams a knowledge base's job changes without the client polling: queued, running with its
 * percent, completed with its chunk count; failed with its reason; cancelled. Also who may follow
 * (the jobs list's permission), that bad ids and unknown query parameters get a 400 naming them,
 * that a user past JOB_EVENT_STREAMS_PER_USER_MAX gets a clear 429 while the others stream, and
 * that a client that hangs up frees its stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPdf } from './support/pdf-fixture.js';
import { openJobEvents } from './support/job-event-stream.js';
import { uploadDocument } from './support/knowledge-uploads.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

const STREAMS_MAXIMUM = 5;

describe.each(TEST_DIALECTS)('the job event stream on %s', (dialect) => {
  let server: TestServer;
  let owner: string;
  let colleague: string;
  let stranger: string;
  let learner: string;
  let knowledgeBase: number;
  let shared: number;
  const eventsOf = (id: number): string => `/api/knowledge-bases/${id}/jobs/events`;

  beforeAll(async () => {
    server = await startTestServer(dialect, {
      environment: { JOB_EVENT_STREAMS_PER_USER_MAX: String(STREAMS_MAXIMUM), JOB_EVENTS_POLL_MS: '50' },
    });
    [owner, colleague, stranger, learner] = (await peopleInTwoOrganizations(server, await loginAsAdmin(server), [
      { email: `events-owner-${dialect}@merino.test`, role: 'creator', organization: 'A' },
      { email: `events-colleague-${dialect}@merino.test`, role: 'creator', organization: 'A' },
      { email: `events-stranger-${dialect}@merino.test`, role: 'creator', organization: 'B' },
      { email: `events-learner-${dialect}@merino.test`, role: 'learner', organization: 'A' },
    ])) as [string, string, string, string];
    knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token: owner, body: { name: 'Private notes' } })).body.id;
    shared = (await request(server, 'POST', '/api/knowledge-bases', { token: owner, body: { name: 'Shared notes' } })).body.id;
    const sharing = await request(server, 'PATCH', `/api/knowledge-bases/${shared}`, {
      token: owner,
      body: { visibility: 'organization' },
    });
    expect(sharing.status, sharing.text).toBe(200);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('shows an upload queued, running with its percent, then completed with its chunk count', async () => {
    const stream = await openJobEvents(server, owner, eventsOf(knowledgeBase));
    expect(stream.status).toBe(200);
    const upload = await uploadDocument(server, owner, knowledgeBase, 'heart.md', '# Heart\n\nThe heart pumps blood through the body.\n');
    expect(upload.status, upload.text).toBe(202);
    const jobId: number = upload.body.job_id;
    const ofJob = (name: string) => (event: any) => event.job_id === jobId && event.event === name;
    const queued = await stream.next(ofJob('queued'));
    expect(queued).toMatchObject({ file_name: 'heart.md', percent: 0, chunk_count: null, reason: null });
    const running = await stream.next(ofJob('running'));
    expect(running.percent).toBeGreaterThanOrEqual(0);
    expect(running.percent).toBeLessThanOrEqual(100);
    const completed = await stream.next(ofJob('completed'));
    expect(completed).toMatchObject({ percent: 100, reason: null });
    expect(completed.chunk_count).toBeGreaterThan(0);
    stream.close();
  });

  it('shows a PDF without a text layer failed, with its reason', async () => {
    const stream = await openJobEvents(server, owner, eventsOf(knowledgeBase));
    const upload = await uploadDocument(server, owner, knowledgeBase, 'scan.pdf', buildPdf([{}]));
    expect(upload.status, upload.text).toBe(202);
    const failed = await stream.next((event) => event.job_id === upload.body.job_id && event.event === 'failed');
    expect(failed.reason).toContain('no text layer');
    expect(failed.chunk_count).toBeNull();
    stream.close();
  });

  it('shows a cancelled job cancelled', async () => {
    await server.services.ingestionRunner.stop();
    try {
      const stream = await openJobEvents(server, owner, eventsOf(knowledgeBase));
      const upload = await uploadDocument(server, owner, knowledgeBase, 'later.md', '# Later\n\nNever read.\n');
      const jobId: number = upload.body.job_id;
      await stream.next((event) => event.job_id === jobId && event.event === 'queued');
      const cancelled = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/jobs/${jobId}/cancel`, { token: owner });
      expect(cancelled.status, cancelled.text).toBe(200);
      await stream.next((event) => event.job_id === jobId && event.event === 'cancelled');
      stream.close();
    } finally {
      server.services.ingestionRunner.start();
    }
  });

  it('lets follow exactly those who may read the jobs', async () => {
    const cases: Array<[string | undefined, number, number]> = [
      [owner, knowledgeBase, 200],
      [colleague, knowledgeBase, 404],
      [colleague, shared, 200],
      [stranger, shared, 404],
      [learner, knowledgeBase, 404],
      // A learner of the organization may read a shared knowledge base's jobs list, so its stream too.
      [learner, shared, 200],
      [undefined, shared, 401],
    ];
    for (const [token, id, status] of cases) {
      const stream = await openJobEvents(server, token, eventsOf(id));
      expect(stream.status, `case ${cases.findIndex((entry) => entry[0] === token && entry[1] === id)}`).toBe(status);
      const list = await request(server, 'GET', `/api/knowledge-bases/${id}/jobs`, { token });
      expect(list.status, 'the same answer as the jobs list').toBe(status);
      if (status !== 200) expect(stream.body.error.code).toBeTypeOf('string');
      stream.close();
    }
  });

  it('refuses bad ids and unknown query parameters with a 400 naming them', async () => {
    for (const id of ['abc', '0', '-1', '99999999999999999999']) {
      const response = await request(server, 'GET', `/api/knowledge-bases/${id}/jobs/events`, { token: owner });
      expect(response.status, id).toBe(400);
      expect(response.body.error.param).toBe('id');
    }
    const unknown = await request(server, 'GET', `${eventsOf(knowledgeBase)}?since=yesterday`, { token: owner });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain('since');
    const missing = await openJobEvents(server, owner, eventsOf(987654));
    expect(missing.status).toBe(404);
  });

  it('opens the limit of 50 streams asked at once, refuses the rest with 429, and frees a closed stream', async () => {
    const streams = await Promise.all(Array.from({ length: 50 }, () => openJobEvents(server, colleague, eventsOf(shared))));
    const open = streams.filter((stream) => stream.status === 200);
    const refused = streams.filter((stream) => stream.status === 429);
    expect(open).toHaveLength(STREAMS_MAXIMUM);
    expect(refused).toHaveLength(50 - STREAMS_MAXIMUM);
    expect(refused[0]!.body.error.code).toBe('job_event_streams_limit');
    expect(refused[0]!.body.error.details.streams_maximum).toBe(STREAMS_MAXIMUM);
    // The others still stream: an upload to the shared base reaches every open stream.
    const upload = await uploadDocument(server, owner, shared, 'lungs.md', '# Lungs\n\nThe lungs take in air.\n');
    await Promise.all(open.map((stream) => stream.next((event) => event.job_id === upload.body.job_id && event.event === 'completed')));
    open[0]!.close();
    // The server learns of the hang-up when the socket closes; a new stream fits once it has.
    for (;;) {
      const again = await openJobEvents(server, colleague, eventsOf(shared));
      if (again.status === 200) {
        again.close();
        break;
      }
      expect(again.status).toBe(429);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const stream of open.slice(1)) stream.close();
  });
});
