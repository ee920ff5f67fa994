/**
 * Proves the gemini connector over real HTTP on both dialects, with the official OpenAI client in
 * front of Merino and the official `@google/genai` SDK behind it talking to a fake that speaks
 * Gemini's streamGenerateContent SSE: answers stream and come whole, system messages travel as the
 * system instruction, thoughts arrive as reasoning, a function call runs through the tool loop and
 * goes back with its thought signature and a `functionResponse`, usage is recorded, the provider's
 * failures (bad key, quota, overload, 5xx, a cut stream, a timeout) are catalogue errors with no
 * key or stack in them, the model list is the provider's own, and an organization's keys are
 * secret and its URL is reached only through the outbound guard.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeGeminiServer, type FakeGeminiServer } from './fakes/fake-gemini-server.js';
import {
  answerText,
  expectCleanRefusal,
  expectLoopbackProviderUrlRefused,
  expectOrganizationProviderKeyKeptApart,
  readStream,
} from './support/connector-checks.js';
import { startConnectorWorld, type ConnectorWorld } from './support/connector-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const SERVER_KEY = 'AIza-server-key-555555';
const ORGANIZATION_KEY = 'AIza-organization-key-666666';
const UPSTREAM_TIMEOUT_MS = 1_500;

describe.each(TEST_DIALECTS)('the gemini connector on %s', (dialect) => {
  let fake: FakeGeminiServer;
  let organizationFake: FakeGeminiServer;
  let world: ConnectorWorld;
  let server: TestServer;
  let token: string;
  let client: OpenAI;
  let plainModel: string;
  let toolModel: string;

  const messagesRequests = () => fake.requests.filter((recorded) => recorded.path.includes(':streamGenerateContent'));

  beforeAll(async () => {
    fake = await startFakeGeminiServer({ apiKey: SERVER_KEY });
    organizationFake = await startFakeGeminiServer({ apiKey: ORGANIZATION_KEY });
    world = await startConnectorWorld({
      dialect,
      connector: 'gemini',
      model: 'gemini-2.5-flash',
      environment: { GEMINI_API_KEY: SERVER_KEY, GEMINI_BASE_URL: fake.baseUrl, UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) },
    });
    ({ server, token, client, plainModel, toolModel } = world);
  });

  beforeEach(() => {
    fake.reset();
    organizationFake.reset();
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(fake)?.close();
    await possiblyUnset(organizationFake)?.close();
  });

  it('answers whole, the system prompt sent as the system instruction with the server key, and records the usage', async () => {
    fake.enqueue({ text: 'Photosynthesis makes sugar from light.', usage: { promptTokenCount: 42, candidatesTokenCount: 9 } });
    const answer = await client.chat.completions.create({
      model: plainModel,
      messages: [{ role: 'user', content: 'What is photosynthesis?' }],
    });
    expect(answer.choices[0]!.message.content).toBe('Photosynthesis makes sugar from light.');
    expect(answer.choices[0]!.finish_reason).toBe('stop');
    expect(answer.usage).toMatchObject({ prompt_tokens: 42, completion_tokens: 9, total_tokens: 51 });
    const sent = messagesRequests()[0]!;
    expect(sent.headers['x-goog-api-key']).toBe(SERVER_KEY);
    expect(sent.path).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
    expect(JSON.stringify(sent.body.systemInstruction)).toContain('You are a patient tutor.');
    expect(sent.body.contents.map((content: any) => content.role)).toEqual(['user']);
    const usage = await server.store.db.selectFrom('usage_logs').selectAll().where('connector', '=', 'gemini').execute();
    expect(usage.map((row) => [row.model, row.prompt_tokens, row.completion_tokens, row.outcome])).toContainEqual([
      'gemini-2.5-flash',
      42,
      9,
      'completed',
    ]);
  });

  it('streams the text as it arrives, with thoughts as reasoning kept out of the answer', async () => {
    fake.enqueue({ thoughts: ['Light ', 'and water.'], text: 'Plants use light.', chunkDelayMs: 5 });
    const stream = await client.chat.completions.create({
      model: plainModel,
      stream: true,
      messages: [{ role: 'user', content: 'How do plants eat?' }],
    });
    const { content, reasoning, contentChunks } = await readStream(stream);
    expect(content).toBe('Plants use light.');
    expect(contentChunks).toBeGreaterThan(1);
    expect(reasoning).toBe('Light and water.');
  });

  it('runs a tool the model calls and sends the call back with its thought signature and the result as a functionResponse, streamed and not', async () => {
    for (const stream of [false, true]) {
      fake.reset();
      fake.enqueue(
        { functionCalls: [{ name: 'list_documents', args: {}, thoughtSignature: 'c2lnbmF0dXJl+/=' }] },
        { text: 'The shelf is empty.' },
      );
      const content = await answerText(client, toolModel, 'What documents are there?', stream);
      expect(content).toBe('The shelf is empty.');
      const [first, second] = messagesRequests();
      const declarations = first!.body.tools[0].functionDeclarations;
      expect(declarations.map((declaration: any) => declaration.name)).toEqual(['list_documents']);
      expect(declarations[0].parametersJsonSchema.type).toBe('object');
      const modelTurn = second!.body.contents.at(-2);
      expect(modelTurn.role).toBe('model');
      expect(modelTurn.parts).toContainEqual({ functionCall: { name: 'list_documents', args: {} }, thoughtSignature: 'c2lnbmF0dXJl+/=' });
      const resultTurn = second!.body.contents.at(-1);
      expect(resultTurn.role).toBe('user');
      expect(resultTurn.parts[0].functionResponse.name).toBe('list_documents');
      expect(typeof resultTurn.parts[0].functionResponse.response.content).toBe('string');
    }
  });

  it.each([
    [{ status: 401 }, 502, 'upstream_error'],
    [{ status: 429 }, 429, 'upstream_rate_limited'],
    [{ status: 503 }, 429, 'upstream_rate_limited'],
    [{ status: 500 }, 502, 'upstream_error'],
    [{ status: 400 }, 400, 'upstream_rejected'],
    [{ text: 'cut short', endAfterChunks: 2 }, 502, 'upstream_error'],
    [{ text: 'never finished', hangAfterChunks: 1 }, 504, 'upstream_timeout'],
  ])('reports %o as %i %s, with no key and no stack in the answer or the logs', async (reply, status, code) => {
    fake.enqueue(reply);
    await expectCleanRefusal(world, { status, code, key: SERVER_KEY });
  });

  it("lists the provider's own models", async () => {
    fake.setModelList({ models: ['gemini-2.5-pro', 'gemini-2.5-flash', 'text-embedding-004'] });
    const listed = await request(server, 'GET', '/lamb/v1/completions/list', { token });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.text).toContain('gemini-2.5-pro');
    expect(listed.text).toContain('gemini-2.5-flash');
    expect(listed.text).not.toContain('text-embedding-004');
    const asked = fake.requests.find((recorded) => recorded.path === '/v1beta/models');
    expect(asked?.headers['x-goog-api-key']).toBe(SERVER_KEY);
  });

  it("uses the organization's URL with its key only, never shows the key, and keeps the server key away from it", async () => {
    await expectOrganizationProviderKeyKeptApart({
      world,
      connector: 'gemini',
      organizationBaseUrl: organizationFake.baseUrl,
      lastOrganizationKey: () => organizationFake.requests.at(-1)?.headers['x-goog-api-key'],
      serverKey: SERVER_KEY,
      organizationKey: ORGANIZATION_KEY,
    });
  });
});

describe.each(TEST_DIALECTS)('an organization Gemini URL at a loopback address on %s', (dialect) => {
  it('is refused unless OUTBOUND_ALLOWED_HOSTS names it', async () => {
    const fake = await startFakeGeminiServer();
    try {
      await expectLoopbackProviderUrlRefused({ dialect, connector: 'gemini', fake, apiKey: 'AIza-x' });
    } finally {
      await fake.close();
    }
  });
});
