/**
 * GET /api/knowledge-bases/{id}/documents/{documentId}/passages, over real HTTP on both stores: a
 * document's extracted text (ingested from an upload) as pages of passages in reading order, each
 * with its section, for the knowledge base's owner, for a member of its organization once it is
 * shared, and for a learner who may chat with an assistant that searches it (named by
 * `assistant_id`); 404 for everyone else, 401 without a session, a clear 400 for malformed ids and
 * paging, and the same answer to 50 requests at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

interface Passage {
  chunk_index: number;
  text: string;
  section?: string;
  page?: number;
}

const SECTIONS = ['Roots', 'Stems', 'Leaves', 'Flowers'];

/** A markdown document of four sections, each long enough to be cut into several passages of the smallest size. */
const DOCUMENT = SECTIONS.map(
  (section) =>
    `# ${section}\n\n` +
    Array.from(
      { length: 4 },
      (_unused, index) =>
        `${section} paragraph ${index}: the ${section.toLowerCase()} of a plant carry water and sugar where they are needed.`,
    ).join('\n\n'),
).join('\n\n');

describe.each(TEST_DIALECTS)("a document's text, page by page, on %s", (dialect) => {
  let server: TestServer;
  let owner: string;
  let colleague: string;
  let stranger: string;
  let learner: string;
  let knowledgeBaseId: number;
  let documentId: number;
  let searchingAssistantId: number;
  let unpublishedAssistantId: number;
  let unrelatedAssistantId: number;

  const textPath = (query = ''): string => `/api/knowledge-bases/${knowledgeBaseId}/documents/${documentId}/passages${query}`;
  const read = (token: string | undefined, query = '') => request(server, 'GET', textPath(query), { token });

  async function assistantSearching(knowledgeBaseIds: string[], published: boolean): Promise<number> {
    const tools = knowledgeBaseIds.length === 0 ? [] : [{ type: 'simple_rag', enabled: true, config: { collections: knowledgeBaseIds } }];
    const created = await request(server, 'POST', '/api/assistants', {
      token: owner,
      body: {
        name: `Botanist ${knowledgeBaseIds.length}${published}`,
        system_prompt: 'Help.',
        prompt_template: 'Notes: {context}\n\nQuestion: {user_input}',
        metadata: { assistant_type: 'multi_tool', connector: 'bypass', llm: 'simple-bypass', tools },
      },
    });
    expect(created.status, created.text).toBe(201);
    if (published) {
      const publishing = await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, {
        token: owner,
        body: { published: true },
      });
      expect(publishing.status, publishing.text).toBe(200);
    }
    return created.body.id as number;
  }

  /** Every passage, walked a page of `limit` at a time. */
  async function walk(token: string, limit: number, extra = ''): Promise<Passage[]> {
    const passages: Passage[] = [];
    for (let offset = 0; ; offset += limit) {
      const page = await read(token, `?limit=${limit}&offset=${offset}${extra}`);
      expect(page.status, page.text).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(limit);
      passages.push(...(page.body.items as Passage[]));
      if (offset + limit >= (page.body.total as number)) return passages;
    }
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const adminToken = await loginAsAdmin(server);
    [owner, colleague, stranger, learner] = (await peopleInTwoOrganizations(server, adminToken, [
      { email: `text-owner-${dialect}@merino.test`, role: 'creator', organization: 'A' },
      { email: `text-colleague-${dialect}@merino.test`, role: 'creator', organization: 'A' },
      { email: `text-stranger-${dialect}@merino.test`, role: 'creator', organization: 'B' },
      { email: `text-learner-${dialect}@merino.test`, role: 'learner', organization: 'A' },
    ])) as [string, string, string, string];
    const knowledgeBase = await request(server, 'POST', '/api/knowledge-bases', {
      token: owner,
      body: { name: 'Plant anatomy', chunk_size: 100, chunk_overlap: 0 },
    });
    expect(knowledgeBase.status, knowledgeBase.text).toBe(201);
    knowledgeBaseId = knowledgeBase.body.id as number;
    const uploaded = await uploadDocument(server, owner, knowledgeBaseId, 'anatomy.md', DOCUMENT);
    expect(uploaded.status, uploaded.text).toBe(202);
    const job = await waitForJob(server, owner, knowledgeBaseId, uploaded.body.job_id);
    expect(job.status, JSON.stringify(job)).toBe('completed');
    documentId = uploaded.body.document_id as number;
    searchingAssistantId = await assistantSearching([String(knowledgeBaseId)], true);
    unpublishedAssistantId = await assistantSearching([String(knowledgeBaseId)], false);
    unrelatedAssistantId = await assistantSearching([], true);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('gives the owner the whole text in reading order, a page at a time, each passage with its section', async () => {
    const first = await read(owner, '?limit=3');
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      knowledge_base_id: knowledgeBaseId,
      document_id: documentId,
      file_name: 'anatomy.md',
      status: 'completed',
    });
    expect(first.body.items).toHaveLength(3);
    const total = first.body.total as number;
    expect(total).toBeGreaterThan(SECTIONS.length);

    const passages = await walk(owner, 3);
    expect(passages.map((passage) => passage.chunk_index)).toEqual(Array.from({ length: total }, (_unused, index) => index));
    // Reading order: the sections come in the document's order, and every paragraph is there once.
    const sectionsInOrder = passages.map((passage) => passage.section).filter((section, index, all) => section !== all[index - 1]);
    expect(sectionsInOrder).toEqual(SECTIONS);
    const text = passages.map((passage) => passage.text).join('\n');
    for (const section of SECTIONS) for (const index of [0, 1, 2, 3]) expect(text).toContain(`${section} paragraph ${index}:`);
    expect(await walk(owner, 100)).toEqual(passages);
  });

  it('answers a page past the end with no passages and the same total', async () => {
    const past = await read(owner, '?limit=5&offset=1000000');
    expect(past.status, past.text).toBe(200);
    expect(past.body.items).toEqual([]);
    expect(past.body.total).toBe((await read(owner)).body.total);
  });

  it('gives it to a learner through an assistant that searches it, and only that way', async () => {
    const through = await read(learner, `?assistant_id=${searchingAssistantId}`);
    expect(through.status, through.text).toBe(200);
    expect(through.body.file_name).toBe('anatomy.md');
    expect((await read(learner)).status).toBe(404);
    for (const assistantId of [unpublishedAssistantId, unrelatedAssistantId, 999_999]) {
      const refused = await read(learner, `?assistant_id=${assistantId}`);
      expect(refused.status, String(assistantId)).toBe(404);
      expect(refused.text).not.toContain('paragraph');
    }
  });

  it('gives it to a colleague of the same organization once the knowledge base is shared, not before', async () => {
    const unshared = await read(colleague);
    expect(unshared.status).toBe(404);
    expect(unshared.text).not.toContain('anatomy');
    const shared = await request(server, 'PATCH', `/api/knowledge-bases/${knowledgeBaseId}`, {
      token: owner,
      body: { visibility: 'organization' },
    });
    expect(shared.status, shared.text).toBe(200);
    try {
      expect((await read(colleague)).status).toBe(200);
    } finally {
      await request(server, 'PATCH', `/api/knowledge-bases/${knowledgeBaseId}`, { token: owner, body: { visibility: 'private' } });
    }
    expect((await read(colleague)).status).toBe(404);
  });

  it('is not found for another organization, even naming the assistant, and needs a session', async () => {
    const other = await read(stranger, `?assistant_id=${searchingAssistantId}`);
    expect(other.status).toBe(404);
    expect(other.text).not.toContain('anatomy');
    expect((await read(undefined)).status).toBe(401);
  });

  it('answers malformed ids and paging with a clear 400 naming the parameter, and a foreign document with 404', async () => {
    const base = `/api/knowledge-bases/${knowledgeBaseId}/documents`;
    for (const [path, named] of [
      [`${base}/0/passages`, 'documentId'],
      [`${base}/-4/passages`, 'documentId'],
      [`${base}/anatomy/passages`, 'documentId'],
      [`${base}/99999999999/passages`, 'documentId'],
      [`/api/knowledge-bases/0/documents/${documentId}/passages`, 'id'],
      [textPath('?limit=-1'), 'limit'],
      [textPath('?limit=0'), 'limit'],
      [textPath('?limit=100000'), 'limit'],
      [textPath('?limit=2.5'), 'limit'],
      [textPath('?offset=-1'), 'offset'],
      [textPath('?offset=99999999999'), 'offset'],
      [textPath('?offset=first'), 'offset'],
      [textPath('?assistant_id=0'), 'assistant_id'],
      [textPath('?assistant_id=%3Cscript%3E'), 'assistant_id'],
      [textPath('?q=roots'), 'q'],
    ] as const) {
      const response = await request(server, 'GET', path, { token: owner });
      expect(response.status, path).toBe(400);
      expect(JSON.stringify(response.body), path).toContain(named);
      expect(response.text).not.toMatch(/\bat .*\.(ts|js):\d+/);
    }
    expect((await request(server, 'GET', `${base}/${documentId + 1000}/passages`, { token: owner })).status).toBe(404);
  });

  it('gives 50 readers at once the same page', async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, () => read(learner, `?assistant_id=${searchingAssistantId}&limit=4`)));
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 50 }, () => 200));
    expect(new Set(responses.map((response) => response.text)).size).toBe(1);
  });
});
