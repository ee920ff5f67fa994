/**
 * Bad input to the chats API gets a 400 that names the field, and stores nothing: oversized,
 * empty or mistyped content, bad ids, unknown fields, over-long titles and pages past PAGE_SIZE_MAX.
 * A chat holds at most CHAT_MESSAGES_MAX messages (409 `chat_full`, the question not kept), and
 * no learner text reaches the logs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChat, startChatWorld, type ChatWorld } from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const CONTENT_MAXIMUM = 50;
const MESSAGES_MAXIMUM = 4;
const PAGE_SIZE_MAXIMUM = 5;

describe.each(TEST_DIALECTS)('hostile chat input on %s', (dialect) => {
  let world: ChatWorld;
  let chatId: number;

  beforeAll(async () => {
    world = await startChatWorld(dialect, {
      CHAT_MESSAGE_MAX_CHARS: String(CONTENT_MAXIMUM),
      CHAT_MESSAGES_MAX: String(MESSAGES_MAXIMUM),
      PAGE_SIZE_MAX: String(PAGE_SIZE_MAXIMUM),
    });
    chatId = await startChat(world, world.adminToken);
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  async function storedMessageCount(): Promise<number> {
    return (await world.server.store.db.selectFrom('chat_messages').select('id').execute()).length;
  }

  it('refuses bad message bodies with 400 naming the field, and keeps nothing', async () => {
    const bodies: [unknown, string][] = [
      [{ content: 'x'.repeat(CONTENT_MAXIMUM + 1) }, 'content'],
      [{ content: '' }, 'content'],
      [{ content: '   \n ' }, 'content'],
      [{ content: 42 }, 'content'],
      [{ content: ['a'] }, 'content'],
      [{}, 'content'],
      [{ content: 'fine', stream: 'yes' }, 'stream'],
      [{ content: 'fine', role: 'system' }, 'role'],
    ];
    for (const [body, field] of bodies) {
      const refused = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, { token: world.adminToken, body });
      expect({ body, status: refused.status }).toEqual({ body, status: 400 });
      expect(refused.text).toContain(field);
    }
    expect(await storedMessageCount()).toBe(0);
    expect(world.provider.requests).toHaveLength(0);
  });

  it('refuses bad ids with 4xx and never a 5xx', async () => {
    for (const id of ['0', '-1', 'abc', '99999999999', '1.5', '%00']) {
      for (const [method, path] of [
        ['GET', `/api/chats/${id}`],
        ['DELETE', `/api/chats/${id}`],
        ['GET', `/api/assistants/${id}/chats`],
        ['GET', `/api/assistants/${world.assistantId}/chats/${id}`],
      ] as const) {
        const response = await request(world.server, method, path, { token: world.adminToken });
        expect(response.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${method} ${path}`).toBeLessThan(500);
      }
    }
    const missing = await request(world.server, 'GET', '/api/chats/2147483647', { token: world.adminToken });
    expect(missing.status).toBe(404);
  });

  it('refuses bad new chats and titles, naming the field', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/chats', { assistant_id: 'one' }, 'assistant_id'],
      ['POST', '/api/chats', { assistant_id: 0 }, 'assistant_id'],
      ['POST', '/api/chats', {}, 'assistant_id'],
      ['POST', '/api/chats', { assistant_id: world.assistantId, title: 't'.repeat(201) }, 'title'],
      ['POST', '/api/chats', { assistant_id: world.assistantId, owner_id: 1 }, 'owner_id'],
      ['PATCH', `/api/chats/${chatId}`, { title: '' }, 'title'],
      ['PATCH', `/api/chats/${chatId}`, { title: 7 }, 'title'],
      ['PATCH', `/api/chats/${chatId}`, {}, 'title'],
    ];
    const before = (await request(world.server, 'GET', '/api/chats', { token: world.adminToken })).body.total;
    for (const [method, path, body, field] of cases) {
      const refused = await request(world.server, method, path, { token: world.adminToken, body });
      expect({ body, status: refused.status }).toEqual({ body, status: 400 });
      expect(refused.text).toContain(field);
    }
    expect((await request(world.server, 'GET', '/api/chats', { token: world.adminToken })).body.total).toBe(before);
  });

  it('refuses a page larger than PAGE_SIZE_MAX, naming limit', async () => {
    const refused = await request(world.server, 'GET', `/api/chats?limit=${PAGE_SIZE_MAXIMUM + 1}`, { token: world.adminToken });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('limit');
    expect((await request(world.server, 'GET', `/api/chats?limit=${PAGE_SIZE_MAXIMUM}`, { token: world.adminToken })).status).toBe(200);
  });

  it('accepts content of exactly CHAT_MESSAGE_MAX_CHARS, and stops a chat at CHAT_MESSAGES_MAX messages with 409 chat_full', async () => {
    world.provider.setResponder(() => ({ text: 'ok' }));
    const full = await startChat(world, world.adminToken);
    for (let turn = 0; turn < MESSAGES_MAXIMUM / 2; turn += 1) {
      const answered = await request(world.server, 'POST', `/api/chats/${full}/messages`, {
        token: world.adminToken,
        body: { content: 'y'.repeat(CONTENT_MAXIMUM) },
      });
      expect(answered.status).toBe(200);
    }
    const before = await storedMessageCount();
    const refused = await request(world.server, 'POST', `/api/chats/${full}/messages`, {
      token: world.adminToken,
      body: { content: 'One more learner question' },
    });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('chat_full');
    expect(await storedMessageCount()).toBe(before);
    expect(world.server.logLines.join('\n')).not.toContain('learner question');
    expect(world.server.logLines.join('\n')).not.toContain('y'.repeat(CONTENT_MAXIMUM));
  });
});
