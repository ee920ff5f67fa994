/**
 * The reproduction of issue 27's sixth fault, on both stores: a knowledge base with 3 ingestion
 * jobs answers `GET /api/knowledge-bases/{id}/jobs?limit=2&offset=1` with exactly the second and
 * third newest jobs and the total of 3, where it used to answer all 3 whatever the page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

describe.each(TEST_DIALECTS)("a knowledge base's jobs list honours its page on %s", (dialect) => {
  let server: TestServer;
  let token: string;
  let knowledgeBaseId: number;
  let jobIds: number[];

  beforeAll(async () => {
    server = await startTestServer(dialect);
    token = await loginAsAdmin(server);
    const knowledgeBase = await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Three jobs' } });
    knowledgeBaseId = knowledgeBase.body.id;
    jobIds = [];
    for (const name of ['first', 'second', 'third']) {
      const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBaseId}/documents`, {
        token,
        body: { documents: [{ text: `The ${name} text about cells.`, metadata: { filename: `${name}.txt` } }] },
      });
      expect(queued.status, queued.text).toBe(202);
      jobIds.push(queued.body.documents[0].job_id);
    }
  });

  afterAll(async () => {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed
    await server?.close();
  });

  it('answers limit=2&offset=1 with exactly the second and third newest of 3 jobs', async () => {
    const page = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBaseId}/jobs?limit=2&offset=1`, { token });
    expect(page.status, page.text).toBe(200);
    const [first, second] = jobIds;
    expect(page.body.items.map((job: { id: number }) => job.id)).toEqual([second, first]);
    expect(page.body.total).toBe(3);
  });

  it('answers all 3, newest first, on a page that holds them', async () => {
    const page = await request(server, 'GET', `/api/knowledge-bases/${knowledgeBaseId}/jobs`, { token });
    expect(page.body.items.map((job: { id: number }) => job.id)).toEqual([...jobIds].reverse());
  });
});
