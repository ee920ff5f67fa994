/**
 * Proves, over real HTTP on both dialects, that video captions are knowledge: a WebVTT upload and a
 * SubRip text sent as JSON with its video's address are ingested into passages that start with the
 * time they are spoken, carry `start_seconds`, and link to that moment of the video (YouTube's `t=`,
 * a media fragment elsewhere); cue markup never reaches the index; a damaged caption file and one
 * with no spoken text fail their jobs with the reason; and another creator can search none of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const LECTURE_VTT = `WEBVTT

00:00:02.000 --> 00:00:06.000
<v Professor>Welcome to the lecture on <b>plate tectonics</b>.

00:12:05.500 --> 00:12:09.000
Subduction zones pull the ocean floor &amp; its sediments into the mantle.
`;

const SEMINAR_SRT = `1
00:00:01,000 --> 00:00:04,000
Today we read about coral reefs.

2
01:02:03,000 --> 01:02:08,000
Bleaching happens when the water is too warm for the algae.
`;

describe.each(TEST_DIALECTS)('caption files in a knowledge base on %s', (dialect) => {
  let server: TestServer;
  let teacher: CreatedUser;
  let colleague: CreatedUser;
  let knowledgeBase: number;

  async function query(token: string, text: string): Promise<{ status: number; results: any[] }> {
    const response = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/query`, {
      token,
      body: { query_text: text, top_k: 3 },
    });
    return { status: response.status, results: response.body.results ?? [] };
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { INGESTION_POLL_MS: '20' } });
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: `captions-teacher-${dialect}@merino.test`, role: 'creator' });
    colleague = await createUser(server, adminToken, { email: `captions-colleague-${dialect}@merino.test`, role: 'creator' });
    const created = await request(server, 'POST', '/api/knowledge-bases', {
      token: teacher.token,
      body: { name: 'Lectures', chunk_size: 200, chunk_overlap: 20 },
    });
    expect(created.status, created.text).toBe(201);
    knowledgeBase = created.body.id;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('ingests an uploaded WebVTT file into passages that start with their time, without cue markup', async () => {
    const uploaded = await uploadDocument(server, teacher.token, knowledgeBase, 'lecture.vtt', LECTURE_VTT);
    expect(uploaded.status, uploaded.text).toBe(202);
    const job = await waitForJob(server, teacher.token, knowledgeBase, uploaded.body.job_id);
    expect(job).toMatchObject({ status: 'completed', error: null });

    const { results } = await query(teacher.token, 'subduction ocean floor mantle');
    expect(results[0].data).toBe('[12:05] Subduction zones pull the ocean floor & its sediments into the mantle.');
    expect(results[0].metadata).toMatchObject({ filename: 'lecture.vtt', start_seconds: 725, source_url: null });
    const { results: welcome } = await query(teacher.token, 'plate tectonics');
    expect(welcome[0].data).toBe('[0:02] Welcome to the lecture on plate tectonics.');
    expect(welcome[0].data).not.toMatch(/<|Professor/);
  });

  it("links each passage of a SubRip text sent as JSON to its moment in the video's own player", async () => {
    const posted = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
      token: teacher.token,
      body: {
        documents: [
          {
            text: SEMINAR_SRT,
            metadata: { filename: 'reefs.srt', source_url: 'https://www.youtube.com/watch?v=reefs01' },
          },
          {
            text: SEMINAR_SRT.replace('coral reefs', 'kelp forests').replace('Bleaching', 'Grazing'),
            metadata: { filename: 'kelp.srt', source_url: 'https://media.school.test/kelp.mp4' },
          },
        ],
      },
    });
    expect(posted.status, posted.text).toBe(202);
    for (const queued of posted.body.documents)
      expect((await waitForJob(server, teacher.token, knowledgeBase, queued.job_id)).status).toBe('completed');

    const { results } = await query(teacher.token, 'bleaching warm water algae');
    expect(results[0].data).toBe('[1:02:03] Bleaching happens when the water is too warm for the algae.');
    expect(results[0].metadata).toMatchObject({
      start_seconds: 3723,
      source_url: 'https://www.youtube.com/watch?v=reefs01&t=3723s',
    });
    const { results: kelp } = await query(teacher.token, 'grazing');
    expect(kelp[0].metadata.source_url).toBe('https://media.school.test/kelp.mp4#t=3723');
  });

  it('fails the job of a damaged caption file and of one with no spoken text, each with its reason', async () => {
    const damaged = await uploadDocument(server, teacher.token, knowledgeBase, 'broken.vtt', 'WEBVTT\n\nnot a time line\nhello\n');
    expect(damaged.status, damaged.text).toBe(202);
    const damagedJob = await waitForJob(server, teacher.token, knowledgeBase, damaged.body.job_id);
    expect(damagedJob.status).toBe('failed');
    expect(damagedJob.error).toContain('00:00:01.000 --> 00:00:04.000');

    const silent = await uploadDocument(server, teacher.token, knowledgeBase, 'music.srt', '1\n00:00:01,000 --> 00:00:04,000\n<i></i>\n');
    expect(silent.status, silent.text).toBe(202);
    const silentJob = await waitForJob(server, teacher.token, knowledgeBase, silent.body.job_id);
    expect(silentJob.status).toBe('failed');
    expect(silentJob.error).toContain('no cue with text');
  });

  it('refuses a binary file named .srt at upload, and lets another creator search none of the captions', async () => {
    const binary = await uploadDocument(
      server,
      teacher.token,
      knowledgeBase,
      'clip.srt',
      Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]),
    );
    expect(binary.status).toBe(400);
    expect(binary.body.error).toMatchObject({ code: 'invalid_file', param: 'file' });
    const foreign = await query(colleague.token, 'subduction');
    expect(foreign.status).toBe(404);
  });
});
