/**
 * Proves two organization-level behaviours of simple_rag over real HTTP on both dialects:
 * - with `kb_server` set, collections are queried on the organization's LAMB knowledge-base
 *   server with LAMB's contract and its key, and an unknown collection leaves `{context}` empty
 *   with a status naming the failure (never the key);
 * - `query_mode: "context_aware"` searches with the query the organization's small fast model
 *   writes from the conversation, and falls back to the last message when no model is set or
 *   the model fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLambKnowledgeServer, type FakeLambKnowledgeServer } from './fakes/fake-lamb-knowledge-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const KNOWLEDGE_SERVER_KEY = 'lamb-kb-server-key-0123456789';
const PROVIDER_KEY = 'sk-small-fast-model-key-0123456789';
const KREBS = 'The Krebs cycle releases energy inside the mitochondria.';
const MITOSIS = 'Mitosis divides one cell into two identical daughter cells.';

function promptOf(answer: { body: any }): string {
  return JSON.parse(answer.body.choices[0].message.content).messages.at(-1).content;
}

describe.each(TEST_DIALECTS)('simple_rag with organization settings on %s', (dialect) => {
  let server: TestServer;
  let knowledgeServer: FakeLambKnowledgeServer;
  let provider: FakeOpenAiServer;
  let adminToken: string;
  let organizationId: number;
  let localKnowledgeBase: number;

  const patchSettings = (body: Record<string, unknown>) =>
    request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, { token: adminToken, body });

  async function createAssistant(config: Record<string, unknown>): Promise<string> {
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: {
        name: `Tutor ${Math.random()}`,
        prompt_template: 'Context:{context}Question:{user_input}',
        metadata: { assistant_type: 'multi_tool', connector: 'bypass', llm: 'debug-bypass', tools: [{ type: 'simple_rag', config }] },
      },
    });
    expect(created.status, created.text).toBe(201);
    return `lamb_assistant.${created.body.id}`;
  }

  const chat = (model: string, messages: Array<{ role: string; content: string }>) =>
    request(server, 'POST', '/v1/chat/completions', { token: adminToken, body: { model, messages } });

  beforeAll(async () => {
    knowledgeServer = await startFakeLambKnowledgeServer({
      apiKey: KNOWLEDGE_SERVER_KEY,
      collections: {
        'physics-101': [
          {
            text: 'Newton’s second law: force equals mass times acceleration.',
            metadata: { filename: 'mechanics.pdf', page: 12, source_url: 'https://lamb.example/files/mechanics.pdf' },
          },
        ],
        'optics-101': [{ text: 'Light bends towards the normal when it enters glass from air.' }],
      },
    });
    provider = await startFakeOpenAiServer({ apiKey: PROVIDER_KEY });
    server = await startTestServer(dialect, { environment: { INGESTION_POLL_MS: '20' } });
    adminToken = await loginAsAdmin(server);
    organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    localKnowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token: adminToken, body: { name: 'Biology' } })).body.id;
    const queued = await request(server, 'POST', `/api/knowledge-bases/${localKnowledgeBase}/documents`, {
      token: adminToken,
      body: { documents: [{ text: KREBS }, { text: MITOSIS }] },
    });
    for (const { job_id } of queued.body.documents)
      expect((await waitForJob(server, adminToken, localKnowledgeBase, job_id)).status).toBe('completed');
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(knowledgeServer)?.close();
    await possiblyUnset(provider)?.close();
  });

  describe('an organization with an external LAMB knowledge-base server', () => {
    beforeAll(async () => {
      expect((await patchSettings({ kb_server: { url: knowledgeServer.url, api_key: KNOWLEDGE_SERVER_KEY } })).status).toBe(200);
    });

    afterAll(async () => {
      await patchSettings({ kb_server: null });
    });

    it('queries the collection there with LAMB’s contract and its key, and fills {context} with sources', async () => {
      knowledgeServer.reset();
      const model = await createAssistant({ collections: ['physics-101'], top_k: 2, threshold: 0.1 });
      const answer = await chat(model, [{ role: 'user', content: 'What does force equal?' }]);
      expect(answer.status, answer.text).toBe(200);
      expect(promptOf(answer)).toContain('force equals mass times acceleration');
      expect(knowledgeServer.queries).toHaveLength(1);
      expect(knowledgeServer.queries[0]).toMatchObject({
        collectionId: 'physics-101',
        bearer: KNOWLEDGE_SERVER_KEY,
        body: { query_text: 'What does force equal?', top_k: 2, threshold: 0.1 },
      });
      expect(answer.body.sources[0]).toMatchObject({
        title: 'mechanics.pdf',
        url: 'https://lamb.example/files/mechanics.pdf',
        page: 12,
        tool: 'simple_rag',
      });
    });

    it('names the collection as the source of a passage the server gave no file name', async () => {
      const model = await createAssistant({ collections: ['optics-101'], top_k: 1, threshold: 0 });
      const answer = await chat(model, [{ role: 'user', content: 'How does light bend entering glass?' }]);
      expect(answer.status, answer.text).toBe(200);
      expect(promptOf(answer)).toContain('Light bends towards the normal');
      expect(promptOf(answer)).toContain('[knowledge base optics-101]');
      expect(answer.body.sources[0]).toMatchObject({ title: 'knowledge base optics-101', tool: 'simple_rag' });
    });

    it('leaves {context} empty for a collection the server does not know, with a status that never shows the key', async () => {
      const model = await createAssistant({ collections: ['no-such-collection'] });
      const streamed = await fetch(`${server.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'force' }] }),
      });
      const text = await streamed.text();
      expect(streamed.status).toBe(200);
      expect(text).toContain('not found on the organization');
      expect(text).not.toContain(KNOWLEDGE_SERVER_KEY);
      expect(text).toContain('data: [DONE]');
    });
  });

  describe('context_aware queries', () => {
    const conversation = [
      { role: 'user', content: 'Tell me about the Krebs cycle.' },
      { role: 'assistant', content: 'It is a series of reactions in cellular respiration.' },
      { role: 'user', content: 'Where does it happen?' },
    ];

    beforeAll(async () => {
      expect((await patchSettings({ providers: { openai: { api_key: PROVIDER_KEY, base_url: provider.baseUrl } } })).status).toBe(200);
    });

    it('searches with the query the small fast model writes from the conversation', async () => {
      expect((await patchSettings({ small_fast_model: { connector: 'openai', model: 'gpt-4o-mini' } })).status).toBe(200);
      provider.reset();
      provider.enqueue({ text: 'Krebs cycle location in the mitochondria' });
      const model = await createAssistant({ collections: [String(localKnowledgeBase)], top_k: 1, query_mode: 'context_aware' });
      const answer = await chat(model, conversation);
      expect(promptOf(answer)).toContain(KREBS);
      const rewriteRequest = provider.requests.find((recorded) => recorded.path.endsWith('/chat/completions'));
      expect(rewriteRequest?.body).toMatchObject({ model: 'gpt-4o-mini' });
      const sentToModel = JSON.stringify(rewriteRequest?.body);
      expect(sentToModel).toContain('Tell me about the Krebs cycle.');
      expect(sentToModel).toContain('Where does it happen?');
    });

    it('falls back to the last message when the small fast model fails', async () => {
      provider.reset();
      provider.enqueue({ status: 500, errorMessage: 'model crashed' });
      const model = await createAssistant({ collections: [String(localKnowledgeBase)], top_k: 1, query_mode: 'context_aware' });
      const answer = await chat(model, [...conversation.slice(0, 2), { role: 'user', content: 'and mitosis divides cells how?' }]);
      expect(answer.status).toBe(200);
      expect(promptOf(answer)).toContain(MITOSIS);
      expect(provider.requests.length).toBeGreaterThan(0);
    });

    it('uses the last message without calling any model when none is configured', async () => {
      expect((await patchSettings({ small_fast_model: null })).status).toBe(200);
      provider.reset();
      const model = await createAssistant({ collections: [String(localKnowledgeBase)], top_k: 1, query_mode: 'context_aware' });
      const answer = await chat(model, [{ role: 'user', content: 'mitosis daughter cells' }]);
      expect(promptOf(answer)).toContain(MITOSIS);
      expect(provider.requests).toHaveLength(0);
    });
  });
});
