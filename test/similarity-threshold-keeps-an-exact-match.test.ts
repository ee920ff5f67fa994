/**
 * Proves that a similarity threshold keeps a passage whose similarity equals it exactly ("at least
 * the threshold", as LAMB means it) and drops it just above: over real HTTP on SQLite and
 * PostgreSQL through `POST /api/knowledge-bases/{id}/query`, with the threshold set to the exact
 * similarity a first query reported; and in the client of an external LAMB knowledge-base server,
 * against the fake that speaks its wire format.
 *
 * Why this file exists: turning `similarity >= threshold` into `>` failed no test, because the
 * threshold was only tried at 0 and 0.999.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverFetch } from '../src/pipeline/upstream/outbound-fetch.js';
import { queryExternalKnowledgeServer } from '../src/retrieval/external-knowledge-server.js';
import { startFakeLambKnowledgeServer, type FakeLambKnowledgeServer } from './fakes/fake-lamb-knowledge-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

/** Passages that share some of the query's words, so their similarities differ. */
const PASSAGES = [
  'Mitosis divides one cell into two cells; mitosis keeps the chromosome number.',
  'Meiosis is a cell division that halves the chromosome number.',
  'The Krebs cycle releases energy in the mitochondria of the cell.',
];
const QUERY = 'mitosis cell division chromosome';

interface QueryResult {
  similarity: number;
  data: string;
}

/** The next double above `value`, so "just above the threshold" is as close as arithmetic allows. */
function nextAbove(value: number): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return view.getFloat64(0);
}

describe.each(TEST_DIALECTS)('the knowledge-base query threshold on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let knowledgeBaseId: number;

  async function search(threshold: number): Promise<QueryResult[]> {
    const response = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBaseId}/query`, {
      token,
      body: { query_text: QUERY, top_k: 10, threshold },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.results as QueryResult[];
  }

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { INGESTION_POLL_MS: '20' } });
    token = await loginAsAdmin(server);
    knowledgeBaseId = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Cells' } })).body.id as number;
    const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBaseId}/documents`, {
      token,
      body: { documents: PASSAGES.map((text, index) => ({ text, metadata: { filename: `passage-${index}.md` } })) },
    });
    expect(queued.status, queued.text).toBe(202);
    for (const { job_id } of queued.body.documents)
      expect((await waitForJob(server, token, knowledgeBaseId, job_id)).status).toBe('completed');
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('finds every passage with some similarity, strictly between 0 and 1, with at least two different values', async () => {
    const all = await search(0);
    expect(all).toHaveLength(PASSAGES.length);
    for (const result of all) {
      expect(result.similarity).toBeGreaterThan(0);
      expect(result.similarity).toBeLessThan(1);
    }
    expect(new Set(all.map((result) => result.similarity)).size).toBeGreaterThan(1);
  });

  it('keeps each passage when the threshold equals its similarity exactly, and drops it just above', async () => {
    const all = await search(0);
    for (const boundary of all) {
      const atThreshold = await search(boundary.similarity);
      expect(
        atThreshold.map((result) => result.data),
        `threshold ${boundary.similarity}`,
      ).toContain(boundary.data);
      const expected = all.filter((result) => result.similarity >= boundary.similarity).map((result) => result.data);
      expect(atThreshold.map((result) => result.data)).toEqual(expected);
      const justAbove = await search(nextAbove(boundary.similarity));
      expect(justAbove.map((result) => result.data)).not.toContain(boundary.data);
      expect(justAbove.every((result) => result.similarity > boundary.similarity)).toBe(true);
    }
  });
});

describe("the external LAMB knowledge-base server's threshold", () => {
  let knowledgeServer: FakeLambKnowledgeServer;

  beforeAll(async () => {
    knowledgeServer = await startFakeLambKnowledgeServer({ collections: {} });
  });

  afterAll(async () => {
    await possiblyUnset(knowledgeServer)?.close();
  });

  it('keeps a hit whose similarity equals the threshold, whatever the server sends, and drops one just below', async () => {
    const results = [
      { similarity: 0.5, data: 'exactly at the threshold', metadata: {} },
      { similarity: nextAbove(0.5), data: 'just above', metadata: {} },
      { similarity: 0.49999999999999994, data: 'just below', metadata: {} },
    ];
    knowledgeServer.enqueue({ body: { results, count: results.length } });
    const hits = await queryExternalKnowledgeServer(
      { url: knowledgeServer.url, fetch: serverFetch },
      '7',
      { queryText: 'anything', topK: 10, threshold: 0.5 },
      { timeoutMilliseconds: 5_000, responseBytesMaximum: 8_388_608 },
    );
    expect(hits.map((hit) => hit.text)).toEqual(['just above', 'exactly at the threshold']);
  });
});
