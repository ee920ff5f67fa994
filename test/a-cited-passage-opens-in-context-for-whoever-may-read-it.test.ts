/**
 * GET /api/knowledge-bases/{id}/documents/{documentId}/passages/{chunkIndex}, over real HTTP on
 * both stores: the passage an answer cited, with its neighbours, for the knowledge base's owner,
 * for a member of its organization once it is shared, and for a learner who may chat with the
 * assistant that searched it (named by `assistant_id`); 404 for everyone else, 401 without a
 * session, a clear 400 for malformed input, and the same answer to 50 requests at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatWorld, type ChatWorld } from './support/chat-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { addSourcedAssistant, QUESTION, type SourcedAssistant } from './support/sourced-assistant.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';

interface Cited {
  knowledgeBaseId: number;
  documentId: number;
  chunkIndex: number;
}

describe.each(TEST_DIALECTS)('a cited passage in its document on %s', (dialect) => {
  let world: ChatWorld;
  let owner: string;
  let colleague: string;
  let stranger: string;
  let learner: string;
  let sourced: SourcedAssistant;
  let cited: Cited;
  let unpublishedAssistantId: number;
  let unrelatedAssistantId: number;

  const passagePath = (target: Cited, query = ''): string =>
    `/api/knowledge-bases/${target.knowledgeBaseId}/documents/${target.documentId}/passages/${target.chunkIndex}${query}`;
  const read = (token: string | undefined, query = '') => request(world.server, 'GET', passagePath(cited, query), { token });

  async function assistantSearching(knowledgeBaseIds: string[], published: boolean): Promise<number> {
    const tools = knowledgeBaseIds.length === 0 ? [] : [{ type: 'simple_rag', enabled: true, config: { collections: knowledgeBaseIds } }];
    const created = await request(world.server, 'POST', '/api/assistants', {
      token: owner,
      body: {
        name: `Helper ${knowledgeBaseIds.length}${published}`,
        system_prompt: 'Help.',
        prompt_template: 'Notes: {context}\n\nQuestion: {user_input}',
        metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools },
      },
    });
    expect(created.status, created.text).toBe(201);
    if (published)
      await request(world.server, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: owner, body: { published: true } });
    return created.body.id as number;
  }

  beforeAll(async () => {
    world = await startChatWorld(dialect);
    [owner, colleague, stranger, learner] = (await peopleInTwoOrganizations(world.server, world.adminToken, [
      { email: `passage-owner-${dialect}@merino.test`, role: 'creator', organization: 'A' },
      { email: `passage-colleague-${dialect}@merino.test`, role: 'creator', organization: 'A' },
      { email: `passage-stranger-${dialect}@merino.test`, role: 'creator', organization: 'B' },
      { email: `passage-learner-${dialect}@merino.test`, role: 'learner', organization: 'A' },
    ])) as [string, string, string, string];
    sourced = await addSourcedAssistant(world.server, owner);
    // The learner asks, and reads the cited passage's place from the answer's first source.
    const chat = await request(world.server, 'POST', '/api/chats', { token: learner, body: { assistant_id: sourced.assistantId } });
    world.provider.enqueue({ text: 'Light first [1].' });
    const answered = await request(world.server, 'POST', `/api/chats/${chat.body.id}/messages`, {
      token: learner,
      body: { content: QUESTION },
    });
    expect(answered.status, answered.text).toBe(200);
    const kept = await request(world.server, 'GET', `/api/chats/${chat.body.id}`, { token: learner });
    const source = kept.body.messages[1].sources[0];
    cited = { knowledgeBaseId: Number(source.knowledge_base_id), documentId: Number(source.document_id), chunkIndex: source.chunk_index };
    unpublishedAssistantId = await assistantSearching([String(cited.knowledgeBaseId)], false);
    unrelatedAssistantId = await assistantSearching([], true);
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  it('shows the owner the passage with its neighbours, in order, with section and page', async () => {
    const response = await read(owner);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({
      knowledge_base_id: cited.knowledgeBaseId,
      document_id: cited.documentId,
      file_name: 'photosynthesis.md',
      chunk_index: cited.chunkIndex,
      chunk_count: 2,
    });
    const passages = response.body.passages as Array<{ chunk_index: number; text: string; section?: string; page?: number }>;
    expect(passages.map((passage) => passage.chunk_index)).toEqual([0, 1]);
    expect(passages.map((passage) => [passage.section, passage.page])).toEqual([
      ['Light reactions', 2],
      ['Calvin cycle', 3],
    ]);
  });

  it('shows it to a learner who may chat with the assistant that searched it, and only through that assistant', async () => {
    const through = await read(learner, `?assistant_id=${sourced.assistantId}`);
    expect(through.status, through.text).toBe(200);
    expect(through.body.passages).toHaveLength(2);
    expect((await read(learner)).status).toBe(404);
    // An assistant the learner may not chat with, or one that does not search this knowledge base, opens nothing.
    expect((await read(learner, `?assistant_id=${unpublishedAssistantId}`)).status).toBe(404);
    expect((await read(learner, `?assistant_id=${unrelatedAssistantId}`)).status).toBe(404);
    expect((await read(learner, '?assistant_id=999999')).status).toBe(404);
  });

  it('shows it to a colleague of the same organization through the assistant, or once the knowledge base is shared', async () => {
    expect((await read(colleague)).status).toBe(404);
    expect((await read(colleague, `?assistant_id=${sourced.assistantId}`)).status).toBe(200);
    const shared = await request(world.server, 'PATCH', `/api/knowledge-bases/${cited.knowledgeBaseId}`, {
      token: owner,
      body: { visibility: 'organization' },
    });
    expect(shared.status, shared.text).toBe(200);
    expect((await read(colleague)).status).toBe(200);
    await request(world.server, 'PATCH', `/api/knowledge-bases/${cited.knowledgeBaseId}`, {
      token: owner,
      body: { visibility: 'private' },
    });
  });

  it('is not found for another organization, even naming the assistant, and needs a session', async () => {
    const other = await read(stranger, `?assistant_id=${sourced.assistantId}`);
    expect(other.status).toBe(404);
    expect(other.text).not.toContain('photosynthesis');
    expect((await read(undefined)).status).toBe(401);
  });

  it('answers malformed input with a clear 400 and a passage that is not there with 404', async () => {
    const base = `/api/knowledge-bases/${cited.knowledgeBaseId}/documents/${cited.documentId}/passages`;
    for (const [path, named] of [
      [`${base}/-1`, 'chunkIndex'],
      [`${base}/first`, 'chunkIndex'],
      [`${base}/99999999999`, 'chunkIndex'],
      [`${base}/0?assistant_id=0`, 'assistant_id'],
      [`${base}/0?assistant_id=%3Cscript%3E`, 'assistant_id'],
      [`${base}/0?chunk=1`, 'chunk'],
      [`/api/knowledge-bases/0/documents/${cited.documentId}/passages/0`, 'id'],
    ] as const) {
      const response = await request(world.server, 'GET', path, { token: owner });
      expect(response.status, path).toBe(400);
      expect(JSON.stringify(response.body), path).toContain(named);
      expect(response.text).not.toMatch(/\bat .*\.(ts|js):\d+/);
    }
    expect((await read(owner)).status).toBe(200);
    expect((await request(world.server, 'GET', `${base}/57`, { token: owner })).status).toBe(404);
    const otherDocument = { ...cited, documentId: cited.documentId + 1000 };
    expect((await request(world.server, 'GET', passagePath(otherDocument), { token: owner })).status).toBe(404);
  });

  it('gives 50 readers at once the same passage', async () => {
    const responses = await Promise.all(Array.from({ length: 50 }, () => read(learner, `?assistant_id=${sourced.assistantId}`)));
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 50 }, () => 200));
    expect(new Set(responses.map((response) => response.text)).size).toBe(1);
  });
});
