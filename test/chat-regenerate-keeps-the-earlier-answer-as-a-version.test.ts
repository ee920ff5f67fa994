/**
 * Regenerate answers the chat's last question again on the conversation up to it; the new answer
 * is shown (streamed or not) and the old one stays as an earlier version of it; a chat with no
 * question gets 409 `nothing_to_regenerate`; an answer that fails while regenerating leaves the
 * old one shown.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serverSentEvents, startChat, startChatWorld, type ChatWorld } from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe.each(TEST_DIALECTS)('regenerating on %s', (dialect) => {
  let world: ChatWorld;

  beforeAll(async () => {
    world = await startChatWorld(dialect);
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  beforeEach(() => {
    world.provider.reset();
  });

  const contentsOf = async (chatId: number) =>
    ((await request(world.server, 'GET', `/api/chats/${chatId}`, { token: world.adminToken })).body.messages as { content: string }[]).map(
      (message) => message.content,
    );

  it('shows the new answer and keeps the old as a version, running on the conversation up to the last question', async () => {
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ text: 'Answer one.' }, { text: 'Answer two.' });
    await request(world.server, 'POST', `/api/chats/${chatId}/messages`, { token: world.adminToken, body: { content: 'Question one' } });
    await request(world.server, 'POST', `/api/chats/${chatId}/messages`, { token: world.adminToken, body: { content: 'Question two' } });

    world.provider.enqueue({ text: 'Better answer two.' });
    const regenerated = await request(world.server, 'POST', `/api/chats/${chatId}/regenerate`, { token: world.adminToken, body: {} });
    expect(regenerated.status).toBe(200);
    expect(regenerated.body.choices[0].message.content).toBe('Better answer two.');
    const upstream = world.provider.requests.at(-1)!.body.messages as { role: string; content: string }[];
    expect(upstream.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(upstream.map((message) => message.content).join('\n')).not.toContain('Answer two.');
    expect(await contentsOf(chatId)).toEqual(['Question one', 'Answer one.', 'Question two', 'Better answer two.']);

    world.provider.enqueue({ chunks: ['Streamed ', 'answer two.'] });
    const streamed = await request(world.server, 'POST', `/api/chats/${chatId}/regenerate`, {
      token: world.adminToken,
      body: { stream: true },
    });
    expect(serverSentEvents(streamed.text).at(-1)).toBe('[DONE]');
    expect(await contentsOf(chatId)).toEqual(['Question one', 'Answer one.', 'Question two', 'Streamed answer two.']);
    const shown = await request(world.server, 'GET', `/api/chats/${chatId}`, { token: world.adminToken });
    const last = shown.body.messages.at(-1) as { id: number; version_ids: number[] };
    expect(last.version_ids).toHaveLength(3);
    expect(last.version_ids.at(-1)).toBe(last.id);
  });

  it('keeps the old answer when regenerating fails', async () => {
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ text: 'Kept answer.' }, { status: 500 });
    await request(world.server, 'POST', `/api/chats/${chatId}/messages`, { token: world.adminToken, body: { content: 'Question' } });
    const failed = await request(world.server, 'POST', `/api/chats/${chatId}/regenerate`, { token: world.adminToken, body: {} });
    expect(failed.status).toBe(502);
    expect(await contentsOf(chatId)).toEqual(['Question', 'Kept answer.']);
  });

  it('answers 409 nothing_to_regenerate for a chat without a question', async () => {
    const chatId = await startChat(world, world.adminToken);
    const refused = await request(world.server, 'POST', `/api/chats/${chatId}/regenerate`, { token: world.adminToken, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('nothing_to_regenerate');
    expect(world.provider.requests).toHaveLength(0);
  });
});
