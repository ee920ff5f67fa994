/**
 * A kept chat is only ever its owner's: every /api/chats/{id} route answers 404 to another member,
 * an admin, a system admin and a user of another organization, and 401 without credentials; lists
 * show only one's own chats. An assistant's managers read members' chats with it only when the
 * members' organization turned `owners_can_read_chats` on, and then see the learner by pseudonym,
 * never by email; learners and other members never can.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChat, startChatWorld, type ChatWorld } from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe.each(TEST_DIALECTS)('chat ownership on %s', (dialect) => {
  let world: ChatWorld;
  let learner: { id: number; token: string; email: string };
  let others: Record<'sameOrganizationCreator' | 'organizationAdmin' | 'otherOrganizationAdmin' | 'otherLearner', string>;
  let chatId: number;
  let organizationId: number;

  beforeAll(async () => {
    world = await startChatWorld(dialect);
    organizationId = (await request(world.server, 'GET', '/api/me', { token: world.adminToken })).body.organization_id;
    learner = await createUser(world.server, world.adminToken, { email: 'learner@merino.test', role: 'learner' });
    const [sameOrganizationCreator, organizationAdmin, otherOrganizationAdmin, otherLearner] = await peopleInTwoOrganizations(
      world.server,
      world.adminToken,
      [
        { email: 'creator@merino.test', role: 'creator', organization: 'A' },
        { email: 'org-admin@merino.test', role: 'admin', organization: 'A' },
        { email: 'b-admin@merino.test', role: 'admin', organization: 'B' },
        { email: 'other-learner@merino.test', role: 'learner', organization: 'A' },
      ],
    );
    others = {
      sameOrganizationCreator: sameOrganizationCreator!,
      organizationAdmin: organizationAdmin!,
      otherOrganizationAdmin: otherOrganizationAdmin!,
      otherLearner: otherLearner!,
    };
    chatId = await startChat(world, learner.token);
    world.provider.enqueue({ text: 'Mitosis.' });
    const answered = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: learner.token,
      body: { content: 'My private question about cells' },
    });
    expect(answered.status).toBe(200);
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  function chatRoutes(id: number): [string, string, unknown][] {
    return [
      ['GET', `/api/chats/${id}`, undefined],
      ['PATCH', `/api/chats/${id}`, { title: 'taken over' }],
      ['POST', `/api/chats/${id}/messages`, { content: 'hello' }],
      ['POST', `/api/chats/${id}/regenerate`, {}],
      ['DELETE', `/api/chats/${id}`, undefined],
    ];
  }

  it('answers 404 to everyone but the owner on every chat route, system admin included, and changes nothing', async () => {
    const intruders = { ...others, systemAdmin: world.adminToken };
    for (const [who, token] of Object.entries(intruders)) {
      for (const [method, path, body] of chatRoutes(chatId)) {
        const response = await request(world.server, method, path, { token, body });
        expect({ who, method, path, status: response.status }).toEqual({ who, method, path, status: 404 });
        expect(response.text).not.toContain('My private question');
      }
      const list = await request(world.server, 'GET', '/api/chats', { token });
      expect(list.body.items.map((chat: { id: number }) => chat.id)).not.toContain(chatId);
    }
    expect(world.provider.requests).toHaveLength(1);
    const mine = await request(world.server, 'GET', `/api/chats/${chatId}`, { token: learner.token });
    expect(mine.status).toBe(200);
    expect(mine.body.title).toBe('My private question about cells');
    expect(mine.body.messages).toHaveLength(2);
  });

  it('answers 401 without credentials', async () => {
    for (const [method, path, body] of [...chatRoutes(chatId), ['GET', '/api/chats', undefined] as [string, string, unknown]]) {
      expect((await request(world.server, method, path, { body })).status).toBe(401);
    }
    expect((await request(world.server, 'GET', `/api/assistants/${world.assistantId}/chats`)).status).toBe(401);
  });

  it('lists my chats and nobody else’s, newest first', async () => {
    const second = await startChat(world, learner.token, 'Second chat');
    const list = await request(world.server, 'GET', '/api/chats', { token: learner.token });
    expect(list.status).toBe(200);
    expect(list.body.items.map((chat: { id: number }) => chat.id)).toEqual([second, chatId]);
    expect(list.body.total).toBe(2);
    expect(list.body.items[1]).toMatchObject({ assistant_id: world.assistantId, assistant_name: 'Biology tutor' });
    const searched = await request(world.server, 'GET', '/api/chats?q=PRIVATE', { token: learner.token });
    expect(searched.body.items.map((chat: { id: number }) => chat.id)).toEqual([chatId]);
    await request(world.server, 'DELETE', `/api/chats/${second}`, { token: learner.token });
  });

  it('refuses to start a chat with an assistant the caller may not chat with (404)', async () => {
    const privateAssistant = await request(world.server, 'POST', '/api/assistants', {
      token: others.sameOrganizationCreator,
      body: { name: 'Unpublished', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    const refused = await request(world.server, 'POST', '/api/chats', {
      token: learner.token,
      body: { assistant_id: privateAssistant.body.id },
    });
    expect(refused.status).toBe(404);
    expect(refused.body.error.param).toBe('assistant_id');
    const missing = await request(world.server, 'POST', '/api/chats', { token: learner.token, body: { assistant_id: 999_999 } });
    expect(missing.status).toBe(404);
  });

  it('lets the assistant’s managers read members’ chats only while the organization allows it, by pseudonym', async () => {
    const readers = { owner: world.adminToken, organizationAdmin: others.organizationAdmin };
    for (const token of Object.values(readers)) {
      expect((await request(world.server, 'GET', `/api/assistants/${world.assistantId}/chats`, { token })).body.items).toEqual([]);
      expect((await request(world.server, 'GET', `/api/assistants/${world.assistantId}/chats/${chatId}`, { token })).status).toBe(404);
    }

    const turnedOn = await request(world.server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
      token: world.adminToken,
      body: { owners_can_read_chats: true },
    });
    expect(turnedOn.body).toMatchObject({ owners_can_read_chats: true, chat_retention_days: null });

    let pseudonym = '';
    for (const token of Object.values(readers)) {
      const list = await request(world.server, 'GET', `/api/assistants/${world.assistantId}/chats`, { token });
      expect(list.status).toBe(200);
      expect(list.body.items.map((chat: { id: number }) => chat.id)).toEqual([chatId]);
      expect(list.body.items[0].learner).toMatch(/^Learner [0-9a-f]{6}$/);
      pseudonym ||= list.body.items[0].learner;
      expect(list.body.items[0].learner).toBe(pseudonym);
      const read = await request(world.server, 'GET', `/api/assistants/${world.assistantId}/chats/${chatId}`, { token });
      expect(read.status).toBe(200);
      expect(read.body.messages[0].content).toBe('My private question about cells');
      expect(read.text).not.toContain(learner.email);
      expect(read.text).not.toContain(`"owner_id"`);
    }
    // Still never through /api/chats/{id}.
    expect((await request(world.server, 'GET', `/api/chats/${chatId}`, { token: world.adminToken })).status).toBe(404);

    for (const token of [others.otherLearner, others.sameOrganizationCreator, others.otherOrganizationAdmin, learner.token]) {
      expect((await request(world.server, 'GET', `/api/assistants/${world.assistantId}/chats`, { token })).status).toBe(404);
      expect((await request(world.server, 'GET', `/api/assistants/${world.assistantId}/chats/${chatId}`, { token })).status).toBe(404);
    }

    await request(world.server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
      token: world.adminToken,
      body: { owners_can_read_chats: false },
    });
    expect(
      (await request(world.server, 'GET', `/api/assistants/${world.assistantId}/chats/${chatId}`, { token: world.adminToken })).status,
    ).toBe(404);
  });
});
