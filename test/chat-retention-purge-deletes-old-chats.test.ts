/**
 * An organization's `chat_retention_days` is enforced by a periodic purge (CHAT_PURGE_INTERVAL_MS)
 * that deletes chats last changed longer ago, with their messages, and nothing else: recent chats
 * and chats of organizations that keep chats stay. Purges of two processes over one store at once
 * delete each chat once and fail nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChat, startChatWorld, type ChatWorld } from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request, startTestServer, type CreatedUser } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';
import { possiblyUnset } from './support/possibly-unset.js';

const WAIT_MILLISECONDS = 10_000;
const DAY_MILLISECONDS = 86_400_000;

describe.each(TEST_DIALECTS)('chat retention on %s', (dialect) => {
  let world: ChatWorld;
  let learner: CreatedUser;
  let otherOrganizationToken: string;
  let organizationId: number;

  beforeAll(async () => {
    world = await startChatWorld(dialect, { CHAT_PURGE_INTERVAL_MS: '100' });
    organizationId = (await request(world.server, 'GET', '/api/me', { token: world.adminToken })).body.organization_id;
    learner = await createUser(world.server, world.adminToken, { email: 'keeper@merino.test', role: 'learner' });
    [otherOrganizationToken] = (await peopleInTwoOrganizations(world.server, world.adminToken, [
      { email: 'b-creator@merino.test', role: 'creator', organization: 'B' },
    ])) as [string];
    world.provider.setResponder(() => ({ text: 'Kept for now.' }));
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  async function age(chatId: number, days: number): Promise<void> {
    const then = new Date(Date.now() - days * DAY_MILLISECONDS).toISOString();
    await world.server.store.db.updateTable('chats').set({ updated_at: then }).where('id', '=', chatId).execute();
  }

  async function chatExists(chatId: number): Promise<boolean> {
    return (await world.server.store.db.selectFrom('chats').select('id').where('id', '=', chatId).executeTakeFirst()) !== undefined;
  }

  it('refuses a retention below one day or of the wrong type, naming the field', async () => {
    for (const value of [0, -3, 1.5, '7']) {
      const refused = await request(world.server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
        token: world.adminToken,
        body: { chat_retention_days: value },
      });
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('chat_retention_days');
    }
  });

  it('deletes chats older than the retention, with their messages, and keeps the rest', async () => {
    const oldChat = await startChat(world, learner.token);
    await request(world.server, 'POST', `/api/chats/${oldChat}/messages`, { token: learner.token, body: { content: 'Old question' } });
    const recentChat = await startChat(world, learner.token);
    // Another organization keeps chats (no retention): its old chat stays.
    const otherAssistant = await request(world.server, 'POST', '/api/assistants', {
      token: otherOrganizationToken,
      body: { name: 'B tutor', metadata: { connector: 'openai', llm: 'gpt-4o-mini' } },
    });
    const otherChat = (
      await request(world.server, 'POST', '/api/chats', { token: otherOrganizationToken, body: { assistant_id: otherAssistant.body.id } })
    ).body.id as number;
    await age(oldChat, 10);
    await age(recentChat, 2);
    await age(otherChat, 400);

    const set = await request(world.server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
      token: world.adminToken,
      body: { chat_retention_days: 7 },
    });
    expect(set.body.chat_retention_days).toBe(7);

    const deadline = Date.now() + WAIT_MILLISECONDS;
    while (await chatExists(oldChat)) {
      if (Date.now() > deadline) throw new Error('the purge never deleted the old chat');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const orphans = await world.server.store.db.selectFrom('chat_messages').select('id').where('chat_id', '=', oldChat).execute();
    expect(orphans).toEqual([]);
    expect(await chatExists(recentChat)).toBe(true);
    expect(await chatExists(otherChat)).toBe(true);
    expect((await request(world.server, 'GET', `/api/chats/${oldChat}`, { token: learner.token })).status).toBe(404);

    const cleared = await request(world.server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
      token: world.adminToken,
      body: { chat_retention_days: null },
    });
    expect(cleared.body.chat_retention_days).toBeNull();
    await age(recentChat, 30);
    expect(await world.server.services.chatRetentionPurger.purgeOnce()).toBe(0);
    expect(await chatExists(recentChat)).toBe(true);
  });

  it('purges from two processes over one store at once without failing or deleting twice', async () => {
    const second = await startTestServer(dialect, { database: world.server.database });
    try {
      await request(world.server, 'DELETE', '/api/chats', { token: learner.token });
      const chats = await Promise.all([1, 2, 3].map(() => startChat(world, learner.token)));
      for (const chatId of chats) await age(chatId, 50);
      await request(world.server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
        token: world.adminToken,
        body: { chat_retention_days: 30 },
      });
      const now = new Date();
      const counts = await Promise.all([
        world.server.services.chatRetentionPurger.purgeOnce(now),
        second.services.chatRetentionPurger.purgeOnce(now),
        second.services.chatRetentionPurger.purgeOnce(now),
      ]);
      expect(counts.reduce((sum, count) => sum + count, 0)).toBeLessThanOrEqual(chats.length);
      for (const chatId of chats) expect(await chatExists(chatId)).toBe(false);
    } finally {
      await second.close();
    }
  });
});
