/**
 * Proves, over real HTTP on both stores with the fake OpenAI server scripted to call tools, that
 * seed 004's tool names work: an assistant whose tools are `retrieve_documents` and
 * `query_documents_metadata` is offered Merino's `search_knowledge_base` and `list_documents`, and
 * the metadata tool answers questions about the documents through its fixed filter (title words,
 * type, size, order, limit) over the documents the owner may read. Text the model writes is only
 * ever compared, never run: an SQL-looking title filter matches nothing and harms nothing, a bad
 * date and an unknown knowledge base come back as readable tool errors, and the answer still comes.
 * Both tools answer in a streamed chat too, read through the official openai client.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest } from './fakes/fake-openai-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const DOCUMENTS = [
  { text: 'Photosynthesis turns light into sugar.', metadata: { filename: 'photosynthesis.md' } },
  { text: `Cell respiration. ${'The mitochondria make ATP. '.repeat(40)}`, metadata: { filename: 'respiration-notes.md' } },
  { text: 'Glossary of cell biology terms.', metadata: { filename: 'glossary.txt' } },
];

function lastToolMessage(recorded: RecordedRequest | undefined): string {
  const messages = (recorded?.body?.messages ?? []) as Array<{ role: string; content: string }>;
  return messages.filter((message) => message.role === 'tool').at(-1)?.content ?? '';
}

describe.each(TEST_DIALECTS)("seed 004's document tools on %s", (dialect) => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let token: string;
  let knowledgeBase: string;
  let model: string;

  /** Asks once, with the model scripted to call list_documents with `filter`; gives back what the tool returned. */
  async function metadataAnswer(filter: Record<string, unknown>): Promise<string> {
    fake.enqueue({ toolCalls: [{ id: 'call_1', name: 'list_documents', arguments: JSON.stringify(filter) }] }, { text: 'Done.' });
    const answer = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model, messages: [{ role: 'user', content: 'Which documents do you have?' }] },
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.choices[0].message.content).toBe('Done.');
    return lastToolMessage(fake.requests.filter((recorded) => recorded.path.endsWith('/chat/completions')).at(-1));
  }

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    server = await startTestServer(dialect, {
      environment: { INGESTION_POLL_MS: '20', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseUrl },
    });
    token = await loginAsAdmin(server);
    knowledgeBase = String((await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Biology' } })).body.id);
    const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
      token,
      body: { documents: DOCUMENTS },
    });
    expect(queued.status, queued.text).toBe(202);
    for (const { job_id } of queued.body.documents)
      expect((await waitForJob(server, token, Number(knowledgeBase), job_id)).status).toBe('completed');
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: 'Seed names',
        system_prompt: 'Answer from the course material.',
        prompt_template: '{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          tools: [
            { type: 'retrieve_documents', config: { collections: [knowledgeBase] } },
            { type: 'query_documents_metadata', config: { collections: [knowledgeBase] } },
          ],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    model = `lamb_assistant.${created.body.id}`;
  });

  beforeEach(() => fake.reset());

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it("offers the seed's tools under Merino's function names", async () => {
    await metadataAnswer({});
    const offered = fake.requests[0]?.body.tools.map((tool: { function: { name: string } }) => tool.function.name);
    expect(offered).toEqual(['search_knowledge_base', 'list_documents']);
  });

  it('lists every document with its knowledge base, type, size and date, newest first', async () => {
    const listed = JSON.parse(await metadataAnswer({}));
    expect(listed.matching).toBe(3);
    expect(listed.documents.map((document: { title: string }) => document.title)).toEqual([
      'glossary.txt',
      'respiration-notes.md',
      'photosynthesis.md',
    ]);
    expect(listed.documents[0]).toMatchObject({ knowledge_base: knowledgeBase, type: 'text/plain', status: 'completed' });
    expect(listed.documents[0].bytes).toBe(Buffer.byteLength(DOCUMENTS[2]!.text));
  });

  it('filters by type, title words and size, orders by size and keeps to the limit', async () => {
    const markdown = JSON.parse(await metadataAnswer({ type: 'md', order: 'largest' }));
    expect(markdown.documents.map((document: { title: string }) => document.title)).toEqual(['respiration-notes.md', 'photosynthesis.md']);
    const titled = JSON.parse(await metadataAnswer({ title_contains: 'RESPIRATION' }));
    expect(titled.documents.map((document: { title: string }) => document.title)).toEqual(['respiration-notes.md']);
    const large = JSON.parse(await metadataAnswer({ bytes_min: 500 }));
    expect(large.matching).toBe(1);
    const limited = JSON.parse(await metadataAnswer({ order: 'title', limit: 2 }));
    expect(limited).toMatchObject({ matching: 3, note: 'Showing 2 of 3 matching documents.' });
    expect(limited.documents.map((document: { title: string }) => document.title)).toEqual(['glossary.txt', 'photosynthesis.md']);
    const future = JSON.parse(await metadataAnswer({ added_after: '2999-01-01' }));
    expect(future.matching).toBe(0);
  });

  it('only compares what the model writes: SQL matches nothing, and a bad date or knowledge base is a readable tool error', async () => {
    const injected = JSON.parse(await metadataAnswer({ title_contains: "x'; DROP TABLE kb_documents; --" }));
    expect(injected.matching).toBe(0);
    expect(JSON.parse(await metadataAnswer({})).matching).toBe(3);
    expect(await metadataAnswer({ added_after: 'last week' })).toMatch(/added_after/);
    expect(await metadataAnswer({ collection: '999999' })).toContain(`use one of: ${knowledgeBase}`);
    expect(await metadataAnswer({ order: 'random' })).toMatch(/order/);
  });

  it('answers through both seed tools in a streamed chat, read by the official openai client', async () => {
    fake.enqueue(
      { toolCalls: [{ id: 'call_1', name: 'search_knowledge_base', arguments: JSON.stringify({ query: 'mitochondria ATP' }) }] },
      { toolCalls: [{ id: 'call_2', name: 'list_documents', arguments: JSON.stringify({ type: 'txt' }) }] },
      { text: 'Streamed done.' },
    );
    const client = new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'Where are the notes on respiration?' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Streamed done.');
    const chatCalls = fake.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));
    expect(chatCalls).toHaveLength(3);
    expect(lastToolMessage(chatCalls[1])).toContain('The mitochondria make ATP.');
    const listed = JSON.parse(lastToolMessage(chatCalls[2]));
    expect(listed.documents.map((document: { title: string }) => document.title)).toEqual(['glossary.txt']);
  });
});
