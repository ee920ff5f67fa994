/**
 * A person downloads all of their chats (JSON or markdown, as an attachment) and nobody else's,
 * and deletes all of them at once without touching anyone else's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChat, startChatWorld, type ChatWorld } from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request, type CreatedUser } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe.each(TEST_DIALECTS)('chat export and delete-all on %s', (dialect) => {
  let world: ChatWorld;
  let learner: CreatedUser;
  let neighbour: CreatedUser;
  let neighbourChat: number;

  beforeAll(async () => {
    world = await startChatWorld(dialect);
    learner = await createUser(world.server, world.adminToken, { email: 'exporter@merino.test', role: 'learner' });
    neighbour = await createUser(world.server, world.adminToken, { email: 'neighbour@merino.test', role: 'learner' });
    world.provider.setResponder(() => ({ text: 'Mitochondria make energy.' }));
    for (const question of ['What do mitochondria do?', 'What is a ribosome?']) {
      const chatId = await startChat(world, learner.token);
      await request(world.server, 'POST', `/api/chats/${chatId}/messages`, { token: learner.token, body: { content: question } });
    }
    neighbourChat = await startChat(world, neighbour.token);
    await request(world.server, 'POST', `/api/chats/${neighbourChat}/messages`, {
      token: neighbour.token,
      body: { content: 'Neighbour secret question' },
    });
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  it('exports all of my chats as a JSON attachment, with their messages', async () => {
    const exported = await request(world.server, 'GET', '/api/chats/export?format=json', { token: learner.token });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-disposition')).toMatch(/^attachment; filename="merino-chats-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(exported.body.chats).toHaveLength(2);
    expect(exported.body.chats.map((chat: { title: string }) => chat.title).sort()).toEqual([
      'What do mitochondria do?',
      'What is a ribosome?',
    ]);
    expect(exported.body.chats[0].messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant']);
    expect(exported.text).not.toContain('Neighbour secret');
  });

  it('exports them as a markdown attachment', async () => {
    const exported = await request(world.server, 'GET', '/api/chats/export?format=markdown', { token: learner.token });
    expect(exported.status).toBe(200);
    expect(exported.headers.get('content-type')).toContain('text/markdown');
    expect(exported.headers.get('content-disposition')).toMatch(/filename="merino-chats-\d{4}-\d{2}-\d{2}\.md"/);
    expect(exported.text).toContain('## What is a ribosome?');
    expect(exported.text).toContain('Mitochondria make energy.');
    expect(exported.text).not.toContain('Neighbour secret');
  });

  it('narrows the export by the list filters and paging when asked', async () => {
    const searched = await request(world.server, 'GET', '/api/chats/export?q=RIBOSOME', { token: learner.token });
    expect(searched.body.chats.map((chat: { title: string }) => chat.title)).toEqual(['What is a ribosome?']);
    const paged = await request(world.server, 'GET', '/api/chats/export?limit=1&offset=1', { token: learner.token });
    expect(paged.body.chats).toHaveLength(1);
  });

  it('refuses an unknown export format with 400 naming it', async () => {
    const refused = await request(world.server, 'GET', '/api/chats/export?format=pdf', { token: learner.token });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('format');
  });

  it('deletes all of my chats and none of anyone else’s', async () => {
    const deleted = await request(world.server, 'DELETE', '/api/chats?confirm=true', { token: learner.token });
    expect(deleted.status).toBe(204);
    expect((await request(world.server, 'GET', '/api/chats', { token: learner.token })).body).toEqual({ items: [], total: 0 });
    expect((await request(world.server, 'GET', '/api/chats/export', { token: learner.token })).body.chats).toEqual([]);
    const kept = await request(world.server, 'GET', `/api/chats/${neighbourChat}`, { token: neighbour.token });
    expect(kept.status).toBe(200);
    expect(kept.body.messages).toHaveLength(2);
  });
});
