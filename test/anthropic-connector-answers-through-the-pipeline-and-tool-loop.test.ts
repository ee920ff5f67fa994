/**
 * Proves the anthropic connector over real HTTP on both dialects, with the official OpenAI client
 * in front of Merino and the official Anthropic SDK behind it talking to a fake that speaks the
 * Messages wire format: answers stream and come whole, system messages travel as `system`,
 * thinking arrives as reasoning, a tool call runs through the tool loop and its result goes back
 * as a `tool_result` block, usage is recorded, the provider's failures (bad key, overload, 5xx,
 * an error event mid-answer, a cut stream, a timeout) are catalogue errors with no key or stack in
 * them, the model list is the provider's own, and an organization's keys are secret and its URL
 * is reached only through the outbound guard.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keyOf, startFakeAnthropicServer, type FakeAnthropicServer } from './fakes/fake-anthropic-server.js';
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

const SERVER_KEY = 'sk-ant-server-key-333333';
const ORGANIZATION_KEY = 'sk-ant-organization-key-444444';
const UPSTREAM_TIMEOUT_MS = 1_500;

describe.each(TEST_DIALECTS)('the anthropic connector on %s', (dialect) => {
  let fake: FakeAnthropicServer;
  let organizationFake: FakeAnthropicServer;
  let world: ConnectorWorld;
  let server: TestServer;
  let token: string;
  let client: OpenAI;
  let plainModel: string;
  let toolModel: string;

  const messagesRequests = () => fake.requests.filter((recorded) => recorded.path === '/v1/messages');

  beforeAll(async () => {
    fake = await startFakeAnthropicServer({ apiKey: SERVER_KEY });
    organizationFake = await startFakeAnthropicServer({ apiKey: ORGANIZATION_KEY });
    world = await startConnectorWorld({
      dialect,
      connector: 'anthropic',
      model: 'claude-haiku-4-5',
      environment: { ANTHROPIC_API_KEY: SERVER_KEY, ANTHROPIC_BASE_URL: fake.baseUrl, UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS) },
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

  it('answers whole, the system prompt sent as `system` with the server key, and records the usage', async () => {
    fake.enqueue({ text: 'Photosynthesis makes sugar from light.', usage: { input_tokens: 42, output_tokens: 9 } });
    const answer = await client.chat.completions.create({
      model: plainModel,
      messages: [{ role: 'user', content: 'What is photosynthesis?' }],
    });
    expect(answer.choices[0]!.message.content).toBe('Photosynthesis makes sugar from light.');
    expect(answer.choices[0]!.finish_reason).toBe('stop');
    expect(answer.usage).toMatchObject({ prompt_tokens: 42, completion_tokens: 9, total_tokens: 51 });
    const sent = messagesRequests()[0]!;
    expect(keyOf(sent)).toBe(SERVER_KEY);
    expect(sent.body.system).toContain('You are a patient tutor.');
    expect(sent.body.messages.every((message: any) => message.role !== 'system')).toBe(true);
    expect(sent.body.model).toBe('claude-haiku-4-5');
    const usage = await server.store.db.selectFrom('usage_logs').selectAll().where('connector', '=', 'anthropic').execute();
    expect(usage.map((row) => [row.model, row.prompt_tokens, row.completion_tokens, row.outcome])).toContainEqual([
      'claude-haiku-4-5',
      42,
      9,
      'completed',
    ]);
  });

  it('streams the text as it arrives, with thinking as reasoning kept out of the answer', async () => {
    fake.enqueue({ thinking: ['Light ', 'and water.'], text: 'Plants use light.', chunkDelayMs: 5 });
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

  it('runs a tool the model calls and sends its result back as a tool_result block, streamed and not', async () => {
    for (const stream of [false, true]) {
      fake.reset();
      fake.enqueue({ toolUses: [{ id: 'toolu_01', name: 'list_documents', input: '{}' }] }, { text: 'The shelf is empty.' });
      const content = await answerText(client, toolModel, 'What documents are there?', stream);
      expect(content).toBe('The shelf is empty.');
      const [first, second] = messagesRequests();
      expect(first!.body.tools.map((tool: any) => tool.name)).toEqual(['list_documents']);
      expect(first!.body.tools[0].input_schema.type).toBe('object');
      const assistantTurn = second!.body.messages.at(-2);
      expect(assistantTurn.role).toBe('assistant');
      expect(assistantTurn.content).toContainEqual({ type: 'tool_use', id: 'toolu_01', name: 'list_documents', input: {} });
      const resultTurn = second!.body.messages.at(-1);
      expect(resultTurn.role).toBe('user');
      expect(resultTurn.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_01' });
    }
  });

  it.each([
    [{ status: 401 }, 502, 'upstream_error'],
    [{ status: 429 }, 429, 'upstream_rate_limited'],
    [{ status: 529 }, 429, 'upstream_rate_limited'],
    [{ status: 500 }, 502, 'upstream_error'],
    [{ status: 400 }, 400, 'upstream_rejected'],
    [{ text: 'cut short', endAfterEvents: 3 }, 502, 'upstream_error'],
    [{ text: 'never finished', hangAfterEvents: 2 }, 504, 'upstream_timeout'],
  ])('reports %o as %i %s, with no key and no stack in the answer or the logs', async (reply, status, code) => {
    fake.enqueue(reply);
    await expectCleanRefusal(world, { status, code, key: SERVER_KEY });
  });

  it('ends a stream that the provider breaks with an error event with an error chunk and no [DONE]', async () => {
    fake.enqueue({ text: 'Half an answer and then', errorAfterEvents: 4 });
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model: plainModel, stream: true, messages: [{ role: 'user', content: 'hello' }] },
    });
    expect(response.text).toContain('upstream_rate_limited');
    expect(response.text).not.toContain('[DONE]');
  });

  it("lists the provider's own models", async () => {
    fake.setModelList({ models: ['claude-opus-4-1', 'claude-haiku-4-5'] });
    const listed = await request(server, 'GET', '/lamb/v1/completions/list', { token });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.text).toContain('claude-opus-4-1');
    expect(listed.text).toContain('claude-haiku-4-5');
    const asked = fake.requests.find((recorded) => recorded.path === '/v1/models');
    expect(asked?.headers['x-api-key']).toBe(SERVER_KEY);
    expect(asked?.headers['anthropic-version']).toBe('2023-06-01');
  });

  it("uses the organization's URL with its key only, never shows the key, and keeps the server key away from it", async () => {
    await expectOrganizationProviderKeyKeptApart({
      world,
      connector: 'anthropic',
      organizationBaseUrl: organizationFake.baseUrl,
      lastOrganizationKey: () => keyOf(organizationFake.requests.at(-1)),
      serverKey: SERVER_KEY,
      organizationKey: ORGANIZATION_KEY,
    });
  });
});

describe.each(TEST_DIALECTS)('an organization Anthropic URL at a loopback address on %s', (dialect) => {
  it('is refused unless OUTBOUND_ALLOWED_HOSTS names it', async () => {
    const fake = await startFakeAnthropicServer();
    try {
      await expectLoopbackProviderUrlRefused({ dialect, connector: 'anthropic', fake, apiKey: 'sk-ant-x' });
    } finally {
      await fake.close();
    }
  });
});
