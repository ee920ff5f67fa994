/**
 * An assistant's `status_as_content` setting writes its status lines into the streamed content for
 * clients that show only content (Open WebUI, Moodle's chat), on /v1/chat/completions (through the
 * official client), LAMB's completions and the chats API, unless a request says otherwise. Without
 * it, status travels in its own chunks, each naming the tool's display name.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverSentEvents, startChatWorld, type ChatWorld } from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe.each(TEST_DIALECTS)('status as content on %s', (dialect) => {
  let world: ChatWorld;
  let client: OpenAI;
  let model: string;

  beforeAll(async () => {
    world = await startChatWorld(dialect);
    const assistant = await request(world.server, 'GET', `/api/assistants/${world.assistantId}`, { token: world.adminToken });
    const updated = await request(world.server, 'PATCH', `/api/assistants/${world.assistantId}`, {
      token: world.adminToken,
      body: { metadata: { ...assistant.body.metadata, status_as_content: true } },
    });
    expect(updated.status).toBe(200);
    const key = (await request(world.server, 'POST', '/api/api-keys', { token: world.adminToken, body: { name: 'sdk' } })).body.key;
    client = new OpenAI({ apiKey: key, baseURL: `${world.server.baseUrl}/v1`, maxRetries: 0 });
    model = `lamb_assistant.${world.assistantId}`;
    world.provider.setResponder(() => ({ text: 'Mitosis.' }));
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  async function streamed(options: Record<string, unknown>): Promise<{ content: string; statusChunks: number }> {
    const stream = await client.chat.completions.create({
      model,
      stream: true,
      messages: [{ role: 'user', content: 'How do cells divide?' }],
      ...options,
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    let content = '';
    let statusChunks = 0;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta.content ?? '';
      if ((chunk as unknown as { status?: unknown }).status !== undefined) statusChunks += 1;
    }
    return { content, statusChunks };
  }

  it('writes status lines into the content on /v1 when the assistant says so', async () => {
    const answer = await streamed({});
    expect(answer.statusChunks).toBe(0);
    expect(answer.content).toMatch(/^_.+…_\n\nMitosis\.$/s);
  });

  it('lets a request say otherwise, and then names each step by its display name', async () => {
    const answer = await streamed({ stream_options: { status_as_content: false } });
    expect(answer.content).toBe('Mitosis.');
    expect(answer.statusChunks).toBe(2);
    const raw = await request(world.server, 'POST', '/v1/chat/completions', {
      token: world.adminToken,
      body: { model, stream: true, stream_options: { status_as_content: false }, messages: [{ role: 'user', content: 'Hi' }] },
    });
    const statuses = (serverSentEvents(raw.text) as Record<string, any>[]).filter((event) => event.status !== undefined);
    const tools = (await request(world.server, 'GET', '/lamb/v1/completions/tools/single_file_rag', { token: world.adminToken })).body;
    expect(tools.display_name).toEqual(expect.stringMatching(/\S/));
    expect(statuses[0]!.status.display_name).toBe(tools.display_name);
  });

  it('follows the setting on LAMB completions and in kept chats, unless the chat request says otherwise', async () => {
    const lamb = await request(world.server, 'POST', `/lamb/v1/completions?assistant=${world.assistantId}`, {
      token: world.adminToken,
      body: { stream: true, messages: [{ role: 'user', content: 'Hi' }] },
    });
    const lambEvents = serverSentEvents(lamb.text) as Record<string, any>[];
    expect(lambEvents.some((event) => event.status !== undefined)).toBe(false);
    expect(lambEvents.map((event) => event.choices?.[0]?.delta?.content ?? '').join('')).toMatch(/^_.+…_/);

    const chatId = (
      await request(world.server, 'POST', '/api/chats', { token: world.adminToken, body: { assistant_id: world.assistantId } })
    ).body.id;
    const following = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: world.adminToken,
      body: { content: 'Hi', stream: true },
    });
    expect((serverSentEvents(following.text) as Record<string, any>[]).some((event) => event.status !== undefined)).toBe(false);
    const overriding = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: world.adminToken,
      body: { content: 'Hi again', stream: true, status_as_content: false },
    });
    expect((serverSentEvents(overriding.text) as Record<string, any>[]).filter((event) => event.status !== undefined)).toHaveLength(2);
  });

  it('refuses a setting that is not a boolean, naming it', async () => {
    const refused = await request(world.server, 'PATCH', `/api/assistants/${world.assistantId}`, {
      token: world.adminToken,
      body: { metadata: { connector: 'openai', llm: 'gpt-4o-mini', status_as_content: 'yes' } },
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('status_as_content');
  });
});
