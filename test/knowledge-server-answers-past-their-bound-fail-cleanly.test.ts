/**
 * Proves KB_SERVER_RESPONSE_MAX_BYTES on both stores, over real HTTP: with a small bound, an
 * organization's LAMB knowledge-base server (reached through the outbound guard) whose answer to a
 * simple_rag query is larger than the bound fails that query with one clear sentence naming the
 * server's host and the setting — in the tool's status, with no stack trace and nothing the server
 * sent — and the request still answers, its {context} empty; answers under the bound still fill
 * {context}. KB_SERVER_TIMEOUT_MS reaches the same query (the service has no default of its own).
 * (src/config/settings.test.ts checks the setting's default and range.)
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeLambKnowledgeServer, type FakeLambKnowledgeServer } from './fakes/fake-lamb-knowledge-server.js';
import { serverSentEvents } from './support/chat-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const BYTES_MAXIMUM = 8_192;
const TIMEOUT_MILLISECONDS = 2_000;
const KNOWLEDGE_SERVER_KEY = 'lamb-kb-server-key-for-the-bound';
const CANARY = 'oversized-canary';
const QUESTION = 'What does the Krebs cycle release?';
const SMALL_PASSAGE = 'The Krebs cycle releases energy inside the mitochondria.';
/** Five passages that each match the question and together pass the bound several times over. */
const LONG_PASSAGES = Array.from({ length: 5 }, (_, index) => ({
  text: `${CANARY} ${index}: the Krebs cycle release ${'goes on and on about cellular respiration '.repeat(60)}`,
}));

interface StatusEvent {
  tool: string;
  state: string;
  message: string;
}

interface StreamedAnswer {
  /** The raw stream, searched as a client would see it. */
  text: string;
  statuses: StatusEvent[];
  /** The answer's text deltas joined: with the bypass connector, the prompt the model would get. */
  content: string;
}

type StreamChunk = { status?: StatusEvent; choices?: Array<{ delta?: { content?: string } }> };

function streamedAnswerOf(text: string): StreamedAnswer {
  const chunks = serverSentEvents(text).filter((event): event is StreamChunk => typeof event === 'object' && event !== null);
  return {
    text,
    statuses: chunks.flatMap((chunk) => (chunk.status === undefined ? [] : [chunk.status])),
    content: chunks.map((chunk) => chunk.choices?.[0]?.delta?.content ?? '').join(''),
  };
}

describe.each(TEST_DIALECTS)('knowledge-base server answers past KB_SERVER_RESPONSE_MAX_BYTES on %s', (dialect) => {
  let knowledgeServer: FakeLambKnowledgeServer;
  let server: TestServer;
  let adminToken: string;
  let host: string;

  /** A simple_rag assistant over one collection of the organization's knowledge-base server; returns its model name. */
  async function createAssistant(collection: string): Promise<string> {
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: {
        name: `Bounded ${collection}`,
        prompt_template: 'Context:{context}Question:{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'simple-bypass',
          tools: [{ type: 'simple_rag', config: { collections: [collection], top_k: 5 } }],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    return `lamb_assistant.${created.body.id}`;
  }

  /** Streams one question to the assistant, as a client that shows statuses would. */
  async function streamedAnswer(model: string): Promise<StreamedAnswer> {
    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: QUESTION }] }),
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    expect(text).toContain('data: [DONE]');
    return streamedAnswerOf(text);
  }

  beforeAll(async () => {
    knowledgeServer = await startFakeLambKnowledgeServer({
      apiKey: KNOWLEDGE_SERVER_KEY,
      collections: { small: [{ text: SMALL_PASSAGE }], oversized: LONG_PASSAGES },
    });
    host = new URL(knowledgeServer.url).host;
    server = await startTestServer(dialect, {
      environment: { KB_SERVER_RESPONSE_MAX_BYTES: String(BYTES_MAXIMUM), KB_SERVER_TIMEOUT_MS: String(TIMEOUT_MILLISECONDS) },
    });
    adminToken = await loginAsAdmin(server);
    const organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    const saved = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: adminToken,
      body: { kb_server: { url: knowledgeServer.url, api_key: KNOWLEDGE_SERVER_KEY } },
    });
    expect(saved.status, saved.text).toBe(200);
  });

  beforeEach(() => {
    knowledgeServer.reset();
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(knowledgeServer)?.close();
  });

  it('fails a query whose answer passes the bound, naming the host and the setting, and shows nothing the server sent', async () => {
    const model = await createAssistant('oversized');
    const { text, statuses, content } = await streamedAnswer(model);
    expect(knowledgeServer.queries).toHaveLength(1);
    const failed = statuses.find((status) => status.state === 'error');
    expect(failed?.tool).toBe('simple_rag');
    expect(failed?.message).toBe(
      `querying knowledge base oversized: The knowledge-base server at ${host} sent an answer larger than KB_SERVER_RESPONSE_MAX_BYTES (${BYTES_MAXIMUM} bytes) allows.`,
    );
    // The request still answers, with {context} left empty.
    expect(content).toContain(QUESTION);
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain(KNOWLEDGE_SERVER_KEY);
    // A stack trace would show call frames such as `at readBoundedText (…/integration-request.ts:72:13)`.
    expect(text).not.toMatch(/\.[jt]s:\d+:\d+/);
    const logs = server.logLines.join('\n');
    expect(logs).not.toContain(CANARY);
    expect(logs).not.toContain(KNOWLEDGE_SERVER_KEY);
  });

  it('fills {context} from an answer under the bound', async () => {
    const model = await createAssistant('small');
    const { statuses, content } = await streamedAnswer(model);
    expect(statuses.filter((status) => status.state === 'error')).toEqual([]);
    expect(content).toContain(SMALL_PASSAGE);
    expect(knowledgeServer.queries).toHaveLength(1);
  });

  it('gives up on a server slower than KB_SERVER_TIMEOUT_MS, as the setting says', async () => {
    const model = await createAssistant('small');
    knowledgeServer.enqueue({ delayMs: 30_000 });
    const { statuses } = await streamedAnswer(model);
    const failed = statuses.find((status) => status.state === 'error');
    expect(failed?.message).toBe(
      `querying knowledge base small: The knowledge-base server at ${host} did not answer within ${TIMEOUT_MILLISECONDS} ms.`,
    );
    await expect.poll(() => knowledgeServer.disconnectedRequests()).toBe(1);
  });
});
