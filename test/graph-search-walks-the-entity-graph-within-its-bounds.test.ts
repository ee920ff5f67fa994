/**
 * graph_search end to end, on both stores, over real HTTP with the official client: a course in
 * Markdown about Paris and the Curies is ingested into a knowledge base with `graph.enabled`; the
 * fake OpenAI server plays the organization's small fast model (gpt-4o-mini), answering the
 * extraction prompt with the capitalised names of each passage as entities and relations from the
 * first name to the others, so the graph reflects the real text; and the assistant's model
 * (gpt-4o), which calls graph_search and answers. Proves: the graph is built only where enabled;
 * the tool returns the connected passages as sources with their documents, streamed and not, with
 * status steps for the entities found and the walk; depth and fan-out bound the walk; re-ingesting
 * a changed document and deleting one keep the graph consistent; a bad answer fails one chunk and
 * a failing model the graph stage only; without a small fast model the tool is not offered and
 * the knowledge base says why; the setting's access per role, hostile input, 50 requests at once.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer, type RecordedRequest, type ScriptedReply } from './fakes/fake-openai-server.js';
import { waitForJob } from './support/knowledge-uploads.js';
import { createOneToolAssistant } from './support/one-tool-assistant.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const SMALL_MODEL = 'gpt-4o-mini';
const ASSISTANT_MODEL = 'gpt-4o';
const QUESTION = 'Where did Marie Curie study, and what is around it?';
const EXTRACTION_SYSTEM = 'You extract the named entities';
/** Capitalised words that start sentences without naming anything. */
const NOT_NAMES = new Set(['The', 'She', 'He', 'It', 'In', 'A']);

const COURSE: Record<string, string> = {
  'curie.md': 'Marie Curie studied physics in Paris. Marie Curie married Pierre Curie.',
  'sorbonne.md': 'Pierre Curie taught at the Sorbonne. The Sorbonne stands in the Latin Quarter.',
  'quarter.md': 'The Latin Quarter is home to the Pantheon. The Pantheon holds the tomb of Voltaire.',
  'leaves.md': 'Photosynthesis happens in the Chloroplast of a Leaf.',
};

interface Message {
  role: string;
  content: string;
}

const messagesOf = (recorded: RecordedRequest): Message[] => (recorded.body?.messages ?? []) as Message[];
const isExtraction = (recorded: RecordedRequest): boolean => messagesOf(recorded)[0]?.content.startsWith(EXTRACTION_SYSTEM) === true;

/** The names of a passage: runs of capitalised words, each once, in order. */
function namesIn(passage: string): string[] {
  const names = (passage.match(/[A-Z][a-z]+(?: [A-Z][a-z]+)*/g) ?? [])
    .map((name) =>
      name
        .split(' ')
        .filter((word, index) => index > 0 || !NOT_NAMES.has(word))
        .join(' '),
    )
    .filter((name) => name !== '');
  return [...new Set(names)];
}

/** What a careful small model would answer: the names as entities, the first related to each other one. */
function extractionReply(recorded: RecordedRequest): ScriptedReply {
  const passage = messagesOf(recorded)[1]!.content.replace(/^Passage:\n/, '');
  if (passage.includes('BROKEN')) return { text: 'I cannot do that as JSON, sorry.' };
  if (passage.includes('OUTAGE')) return { status: 500, errorMessage: 'down' };
  const names = namesIn(passage);
  return {
    text: JSON.stringify({
      entities: names.map((name) => ({ name, type: 'thing' })),
      relations: names.slice(1).map((name) => ({ from: names[0], to: name, label: 'appears with' })),
    }),
  };
}

describe.each(TEST_DIALECTS)('graph_search on %s', (dialect) => {
  let fake: FakeOpenAiServer;
  let server: TestServer;
  let token: string;
  let client: OpenAI;
  let organizationId: number;
  let graphBase: number;
  let plainBase: number;
  const documentIds = new Map<string, number>();

  const chatRequests = () => fake.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));
  const toolResult = () =>
    chatRequests()
      .flatMap(messagesOf)
      .find((message) => message.role === 'tool')?.content ?? '';

  function respond(recorded: RecordedRequest): ScriptedReply {
    if (isExtraction(recorded)) return extractionReply(recorded);
    if (!messagesOf(recorded).some((message) => message.role === 'tool'))
      return {
        toolCalls: [{ id: `call_${chatRequests().length}`, name: 'graph_search', arguments: JSON.stringify({ question: QUESTION }) }],
      };
    return { text: 'Marie Curie studied in Paris [1].' };
  }

  const setSmallFastModel = (model: { connector: string; model: string } | null) =>
    request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, { token, body: { small_fast_model: model } });

  async function addDocuments(knowledgeBase: number, files: Record<string, string>): Promise<any[]> {
    const queued = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase}/documents`, {
      token,
      body: { documents: Object.entries(files).map(([filename, text]) => ({ text, metadata: { filename } })) },
    });
    expect(queued.status, queued.text).toBe(202);
    const jobs = [];
    for (const [index, { job_id, document_id }] of queued.body.documents.entries()) {
      if (knowledgeBase === graphBase) documentIds.set(Object.keys(files)[index]!, document_id);
      jobs.push(await waitForJob(server, token, knowledgeBase, job_id));
    }
    return jobs;
  }

  async function entityNames(knowledgeBase: number): Promise<string[]> {
    const rows = await server.store.db
      .selectFrom('kb_graph_entities')
      .select('display_name')
      .where('knowledge_base_id', '=', knowledgeBase)
      .execute();
    return rows.map((row) => row.display_name).sort();
  }

  async function createAssistant(config: Record<string, unknown> = {}): Promise<string> {
    const assistant = {
      name: 'Paris tutor',
      systemPrompt: 'You teach the history of science.',
      llm: ASSISTANT_MODEL,
      toolType: 'graph_search',
      knowledgeBaseId: graphBase,
    };
    return createOneToolAssistant(server, token, { ...assistant, config });
  }

  const sourceFiles = (sources: Array<{ title: string }>) => [...new Set(sources.map((source) => source.title))].sort();

  beforeAll(async () => {
    fake = await startFakeOpenAiServer();
    fake.setResponder(respond);
    server = await startTestServer(dialect, {
      environment: { INGESTION_POLL_MS: '20', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: fake.baseUrl },
    });
    token = await loginAsAdmin(server);
    client = new OpenAI({ apiKey: token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
    organizationId = (await request(server, 'GET', '/api/me', { token })).body.organization_id;
    expect((await setSmallFastModel({ connector: 'openai', model: SMALL_MODEL })).status).toBe(200);
    const graph = await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Paris', graph: { enabled: true } } });
    expect(graph.status, graph.text).toBe(201);
    expect(graph.body.graph).toEqual({ enabled: true, available: true, unavailable_reason: null });
    graphBase = graph.body.id;
    plainBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Paris, text only' } })).body.id;
    for (const job of await addDocuments(graphBase, COURSE)) {
      expect(job.status).toBe('completed');
      expect(job.progress.message).toMatch(/^Indexed 1 chunks\. Entity graph: \d+ entities and \d+ relations\.$/);
    }
    await addDocuments(plainBase, { 'curie.md': COURSE['curie.md']! });
  });

  beforeEach(() => {
    fake.reset();
    fake.setResponder(respond);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
  });

  it('builds the entity graph from the real text only for the knowledge base that enables it', async () => {
    expect(await entityNames(graphBase)).toEqual(
      [
        'Chloroplast',
        'Latin Quarter',
        'Leaf',
        'Marie Curie',
        'Pantheon',
        'Paris',
        'Photosynthesis',
        'Pierre Curie',
        'Sorbonne',
        'Voltaire',
      ].sort(),
    );
    expect(await entityNames(plainBase)).toEqual([]);
    const view = await request(server, 'GET', `/api/knowledge-bases/${plainBase}`, { token });
    expect(view.body.graph).toEqual({ enabled: false, available: true, unavailable_reason: null });
  });

  it('returns the connected passages as sources with their documents (not streamed)', async () => {
    const model = await createAssistant();
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }] });
    expect(answer.choices[0]!.message.content).toBe('Marie Curie studied in Paris [1].');
    const sources = (answer as unknown as { sources: Array<Record<string, unknown> & { title: string }> }).sources;
    // Depth 2 from Marie Curie: Paris and Pierre Curie, then the Sorbonne and the Latin Quarter; never the leaves.
    expect(sourceFiles(sources)).toEqual(['curie.md', 'quarter.md', 'sorbonne.md']);
    expect(sources[0]).toMatchObject({ title: 'curie.md', tool: 'graph_search', knowledge_base_id: String(graphBase) });
    for (const source of sources) expect(source.document_id).toBe(String(documentIds.get(source.title)));
    expect(toolResult()).toContain('Entities the question names: Marie Curie (thing).');
    expect(toolResult()).toContain('Marie Curie → appears with → Paris');
    expect(toolResult()).toContain('[1] (curie.md) Marie Curie studied physics in Paris.');
  });

  it('streams a status step for the entities found and one for the walk', async () => {
    const model = await createAssistant();
    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: QUESTION }] }),
    });
    expect(response.status).toBe(200);
    const lines = (await response.text())
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)));
    const statuses = lines.filter((line) => line.status).map((line) => line.status);
    const call = statuses.find((status) => status.message === 'calling graph_search')!;
    expect(statuses.filter((status) => status.parent === call.id).map((status) => `${status.state} ${status.message}`)).toEqual([
      'running looking for the entities the question names',
      'done found Marie Curie',
      'done walked 2 steps (at most 8 neighbours each): 4 relations, 5 entities, 3 passages',
    ]);
    expect(sourceFiles(lines.flatMap((line) => line.sources ?? []))).toEqual(['curie.md', 'quarter.md', 'sorbonne.md']);
  });

  it.each([
    { config: { depth: 0 }, files: ['curie.md'] },
    { config: { depth: 1 }, files: ['curie.md', 'sorbonne.md'] },
    { config: { depth: 2, fan_out: 1 }, files: ['curie.md'] },
    { config: { passages: 1 }, files: ['curie.md'] },
  ])('keeps the walk within its bounds: $config', async ({ config, files }) => {
    const model = await createAssistant(config);
    const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }] });
    expect(sourceFiles((answer as unknown as { sources: Array<{ title: string }> }).sources)).toEqual(files);
  });

  it('keeps the graph consistent when a document is re-ingested changed, and when one is deleted', async () => {
    const sorbonne = documentIds.get('sorbonne.md')!;
    const changed = 'Pierre Curie taught at the Ecole Normale.';
    // A small JSON text is kept in the store with its row (KB_JSON_STORED_TEXT_BYTES_MAX); a larger one is a file.
    const storedText = await server.store.db
      .updateTable('kb_document_texts')
      .set({ text: changed })
      .where('document_id', '=', sorbonne)
      .executeTakeFirst();
    if (Number(storedText.numUpdatedRows) === 0)
      await server.services.blobs.write(
        `knowledge/${graphBase}/${sorbonne}`,
        (async function* () {
          yield new TextEncoder().encode(changed);
        })(),
      );
    const job = await server.store.db
      .selectFrom('ingestion_jobs')
      .select('id')
      .where('document_id', '=', sorbonne)
      .executeTakeFirstOrThrow();
    await server.store.db.updateTable('ingestion_jobs').set({ status: 'failed' }).where('id', '=', job.id).execute();
    const retried = await request(server, 'POST', `/api/knowledge-bases/${graphBase}/jobs/${job.id}/retry`, { token });
    expect(retried.status, retried.text).toBeLessThan(300);
    expect((await waitForJob(server, token, graphBase, job.id)).status).toBe('completed');
    // The Sorbonne is gone with the old text; the Latin Quarter stays, since quarter.md still mentions it.
    let names = await entityNames(graphBase);
    expect(names).toContain('Ecole Normale');
    expect(names).not.toContain('Sorbonne');
    expect(names).toContain('Latin Quarter');

    const deleted = await request(server, 'DELETE', `/api/knowledge-bases/${graphBase}/documents/${documentIds.get('quarter.md')}`, {
      token,
    });
    expect(deleted.status).toBe(204);
    names = await entityNames(graphBase);
    for (const gone of ['Latin Quarter', 'Pantheon', 'Voltaire']) expect(names).not.toContain(gone);
    const relations = await server.store.db
      .selectFrom('kb_graph_relations')
      .select('label')
      .where('knowledge_base_id', '=', graphBase)
      .execute();
    // curie.md's two, the changed sorbonne.md's one, leaves.md's two.
    expect(relations).toHaveLength(5);
    const mentions = await server.store.db
      .selectFrom('kb_graph_mentions')
      .leftJoin('kb_chunks', 'kb_chunks.id', 'kb_graph_mentions.chunk_id')
      .select('kb_chunks.id')
      .where('kb_graph_mentions.knowledge_base_id', '=', graphBase)
      .execute();
    expect(mentions.every((mention) => mention.id !== null)).toBe(true);
  });

  it('fails one chunk on an answer that is not the asked JSON, and the graph stage alone when the model fails', async () => {
    const [broken, outage] = await addDocuments(graphBase, {
      'broken.md': 'Ada Lovelace wrote notes. BROKEN',
      'outage.md': 'Alan Turing broke codes. OUTAGE',
    });
    expect(broken.status).toBe('completed');
    expect(broken.progress.message).toBe(
      'Indexed 1 chunks. Entity graph: 0 entities and 0 relations. 1 of 1 chunks could not be read and add nothing.',
    );
    expect(outage.status).toBe('completed');
    expect(outage.progress.message).toMatch(/^Indexed 1 chunks\. Entity graph not built: openai\/gpt-4o-mini failed: /);
    // The text is searchable all the same.
    const found = await request(server, 'POST', `/api/knowledge-bases/${graphBase}/query`, { token, body: { query_text: 'Turing codes' } });
    expect(found.body.results.map((result: { data: string }) => result.data)).toContain('Alan Turing broke codes. OUTAGE');
    expect(await entityNames(graphBase)).not.toContain('Alan Turing');
  });

  it('is not offered, and the knowledge base says why, without a small fast model', async () => {
    expect((await setSmallFastModel(null)).status).toBe(200);
    try {
      const view = await request(server, 'GET', `/api/knowledge-bases/${graphBase}`, { token });
      expect(view.body.graph.enabled).toBe(true);
      expect(view.body.graph.available).toBe(false);
      expect(view.body.graph.unavailable_reason).toContain('names no small fast model');
      const refused = await request(server, 'PATCH', `/api/knowledge-bases/${plainBase}`, { token, body: { graph: { enabled: true } } });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('no_small_fast_model');
      fake.setResponder(() => ({ text: 'No tools today.' }));
      const model = await createAssistant();
      await client.chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }] });
      const offered = (chatRequests()[0]!.body.tools ?? []) as Array<{ function: { name: string } }>;
      expect(offered.map((tool) => tool.function.name)).not.toContain('graph_search');
    } finally {
      await setSmallFastModel({ connector: 'openai', model: SMALL_MODEL });
    }
  });

  it('lets only the owner turn the graph on or off, and refuses what is not a boolean', async () => {
    const [sameOrganization, learner, otherOrganization] = await peopleInTwoOrganizations(server, token, [
      { email: `creator-${dialect}@a.test`, role: 'creator', organization: 'A' },
      { email: `learner-${dialect}@a.test`, role: 'learner', organization: 'A' },
      { email: `creator-${dialect}@b.test`, role: 'creator', organization: 'B' },
    ]);
    const patch = (as: string | undefined, body: unknown) =>
      request(server, 'PATCH', `/api/knowledge-bases/${plainBase}`, { token: as, body });
    for (const person of [sameOrganization, learner, otherOrganization])
      expect([403, 404]).toContain((await patch(person, { graph: { enabled: true } })).status);
    expect((await patch(undefined, { graph: { enabled: true } })).status).toBe(401);
    for (const hostile of [{ graph: { enabled: 'yes' } }, { graph: {} }, { graph: { enabled: true, depth: 99 } }, { graph: null }])
      expect((await patch(token, hostile)).status).toBe(400);
    const owner = await patch(token, { graph: { enabled: true } });
    expect(owner.status).toBe(200);
    expect(owner.body.graph.enabled).toBe(true);
    expect((await patch(token, { graph: { enabled: false } })).body.graph.enabled).toBe(false);
  });

  it('refuses a question past its length as the tool result, and answers a hostile one without harm', async () => {
    const model = await createAssistant();
    for (const question of ['x'.repeat(1_001), "Marie Curie'); drop table kb_graph_entities; --", '%_\\ Marie Curie *']) {
      fake.reset();
      fake.setResponder((recorded) =>
        messagesOf(recorded).some((message) => message.role === 'tool')
          ? { text: 'done' }
          : { toolCalls: [{ id: 'call_1', name: 'graph_search', arguments: JSON.stringify({ question }) }] },
      );
      const answer = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'go' }] });
      expect(answer.choices[0]!.message.content).toBe('done');
    }
    expect(await entityNames(graphBase)).toContain('Marie Curie');
  });

  it('answers 50 graph searches at once, each with its sources', async () => {
    const model = await createAssistant();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => client.chat.completions.create({ model, messages: [{ role: 'user', content: QUESTION }] })),
    );
    for (const answer of answers)
      expect(sourceFiles((answer as unknown as { sources: Array<{ title: string }> }).sources)).toContain('curie.md');
  });
});
