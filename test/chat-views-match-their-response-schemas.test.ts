/**
 * The chats and messages the chat service builds are the shapes the chat routes' response schemas
 * declare (src/chats/chat-schemas.ts): the compiler checks each view type against its schema, and
 * a real chat, with a question and an answer that has sources and steps, is validated against them.
 */
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { chatMessageSchema, chatSchema, chatWithMessagesSchema } from '../src/chats/chat-schemas.js';
import type { ChatWithMessages } from '../src/chats/chat-service.js';
import type { ChatMessageView } from '../src/chats/chat-view.js';
import { createAjv } from '../src/validation/create-ajv.js';
import { startChat, startChatWorld, type ChatWorld } from './support/chat-world.js';
import type { DeclaredShape } from './support/declared-shape.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { request } from './support/test-server.js';

describe('chat views and their response schemas', () => {
  it('declare the same shapes (checked by the compiler)', () => {
    expectTypeOf<ChatMessageView>().toExtend<DeclaredShape<typeof chatMessageSchema>>();
    expectTypeOf<ChatWithMessages>().toExtend<DeclaredShape<typeof chatWithMessagesSchema>>();
  });

  describe('and the answers a server gives', () => {
    let world: ChatWorld;
    const ajv = createAjv({ strict: false });

    beforeAll(async () => {
      world = await startChatWorld('sqlite');
    });

    afterAll(async () => {
      await possiblyUnset(world)?.close();
    });

    it('validate against the schemas', async () => {
      const chatId = await startChat(world, world.adminToken);
      world.provider.enqueue({ text: 'Cells are the units of life.' });
      const asked = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
        token: world.adminToken,
        body: { content: 'What are cells?' },
      });
      expect(asked.status).toBe(200);
      const chat = await request(world.server, 'GET', `/api/chats/${chatId}`, { token: world.adminToken });
      expect(chat.status).toBe(200);
      expect(ajv.validate(chatWithMessagesSchema, chat.body), ajv.errorsText()).toBe(true);
      const answer = (chat.body as { messages: { role: string; sources: unknown[]; steps: unknown[] }[] }).messages.at(-1);
      expect(answer?.role).toBe('assistant');
      expect(answer?.sources.length).toBeGreaterThan(0);
      expect(answer?.steps.length).toBeGreaterThan(0);
      const list = await request(world.server, 'GET', '/api/chats', { token: world.adminToken });
      const items = (list.body as { items: unknown[] }).items;
      expect(items.length).toBeGreaterThan(0);
      expect(
        items.every((item) => ajv.validate(chatSchema, item)),
        ajv.errorsText(),
      ).toBe(true);
    });
  });
});
