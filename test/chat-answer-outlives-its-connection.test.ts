/**
 * An answer in a kept chat belongs to the chat, not to the connection that asked (docs/chats.md):
 * a client that leaves mid-answer finds it complete in the store; another connection rejoins it
 * live from its first word (`GET /api/chats/{id}/run`), fifty at once too; Stop from another
 * connection still stops it and keeps the partial answer; only the chat's owner may rejoin or stop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, streamedContent } from './support/chat-processes.js';
import {
  askAndReadUntil,
  chatMessages,
  chatWorldSuite,
  serverSentEvents,
  startChat,
  startChatWorld,
  type ChatWorld,
} from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';
import { possiblyUnset } from './support/possibly-unset.js';

const BACKGROUND_WAIT_MILLISECONDS = 15_000;
const PIECES = Array.from({ length: 30 }, (_, index) => `part${index} `);
const WHOLE = PIECES.join('');

describe.each(TEST_DIALECTS)('answers that outlive their connection on %s', (dialect) => {
  const world = chatWorldSuite(dialect, { UPSTREAM_TIMEOUT_MS: '20000' });

  it('keeps going when the client leaves, and the store holds the whole answer', async () => {
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 40 });
    const asking = await askAndReadUntil(world, chatId, 'part2 ');
    asking.abort.abort();
    const messages = await eventually(
      () => chatMessages(world, chatId),
      (stored) => stored.length === 2,
      'the answer kept',
      BACKGROUND_WAIT_MILLISECONDS,
    );
    expect(messages[1]).toMatchObject({ role: 'assistant', content: WHOLE, finish_reason: 'stop' });
    expect(world.provider.disconnectedRequests()).toBe(0);
    const after = await request(world.server, 'GET', `/api/chats/${chatId}/run`, { token: world.adminToken });
    expect(after.status).toBe(204);
  });

  it('lets another connection rejoin from the first word and follow to the end, fifty at once', async () => {
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 40 });
    const asking = await askAndReadUntil(world, chatId, 'part1 ');
    asking.abort.abort();
    const rejoined = await Promise.all(
      Array.from({ length: 50 }, () => request(world.server, 'GET', `/api/chats/${chatId}/run`, { token: world.adminToken })),
    );
    for (const response of rejoined) {
      expect(response.status).toBe(200);
      expect(streamedContent(response.text)).toBe(WHOLE);
      expect(serverSentEvents(response.text).at(-1)).toBe('[DONE]');
    }
    expect((await chatMessages(world, chatId))[1]).toMatchObject({ content: WHOLE, finish_reason: 'stop' });
  });

  it('stops from a second connection while the first still reads, and keeps the partial answer', async () => {
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 100 });
    const asking = await askAndReadUntil(world, chatId, 'part2 ');
    const stopped = await request(world.server, 'POST', `/api/chats/${chatId}/run/stop`, { token: world.adminToken });
    expect(stopped.status).toBe(204);
    // Stop answers once the partial answer is kept: no waiting needed.
    const messages = await chatMessages(world, chatId);
    expect(messages[1]).toMatchObject({ role: 'assistant', finish_reason: 'stopped' });
    expect(messages[1]!.content.startsWith('part0 part1 part2 ')).toBe(true);
    expect(messages[1]!.content.length).toBeLessThan(WHOLE.length);
    expect(streamedContent(await asking.rest()).length).toBeLessThan(WHOLE.length);
    await eventually(
      async () => world.provider.disconnectedRequests(),
      (count) => count === 1,
      'the provider request abandoned',
      BACKGROUND_WAIT_MILLISECONDS,
    );
    // The chat takes a new question at once.
    world.provider.enqueue({ text: 'Short.' });
    const next = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: world.adminToken,
      body: { content: 'Again' },
    });
    expect(next.status).toBe(200);
  });

  it('answers one question at a time per chat: 409 while an answer runs', async () => {
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 40 });
    const asking = await askAndReadUntil(world, chatId, 'part0 ');
    const second = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: world.adminToken,
      body: { content: 'And?' },
    });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('chat_run_in_progress');
    const regenerated = await request(world.server, 'POST', `/api/chats/${chatId}/regenerate`, { token: world.adminToken, body: {} });
    expect(regenerated.body.error.code).toBe('chat_run_in_progress');
    expect(streamedContent(await asking.rest())).toBe(WHOLE);
  });

  it('lets only the owner rejoin or stop: 404 to the same organization, another one and a learner; 401 without credentials', async () => {
    const learner = await createUser(world.server, world.adminToken, { email: `learner-${dialect}@merino.test`, role: 'learner' });
    const [sameOrganizationCreator, otherOrganizationAdmin] = await peopleInTwoOrganizations(world.server, world.adminToken, [
      { email: `creator-${dialect}@merino.test`, role: 'creator', organization: 'A' },
      { email: `b-admin-${dialect}@merino.test`, role: 'admin', organization: 'B' },
    ]);
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 40 });
    const asking = await askAndReadUntil(world, chatId, 'part0 ');
    for (const token of [sameOrganizationCreator!, otherOrganizationAdmin!, learner.token]) {
      expect((await request(world.server, 'GET', `/api/chats/${chatId}/run`, { token })).status).toBe(404);
      expect((await request(world.server, 'POST', `/api/chats/${chatId}/run/stop`, { token })).status).toBe(404);
    }
    expect((await request(world.server, 'GET', `/api/chats/${chatId}/run`, {})).status).toBe(401);
    expect((await request(world.server, 'POST', `/api/chats/${chatId}/run/stop`, {})).status).toBe(401);
    // Nobody but the owner stopped it.
    expect(streamedContent(await asking.rest())).toBe(WHOLE);
  });

  it('refuses hostile input with a 4xx naming the problem', async () => {
    for (const path of ['/api/chats/abc/run', '/api/chats/-1/run', '/api/chats/1e99/run', "/api/chats/1'%20or%201=1/run"]) {
      const response = await request(world.server, 'GET', path, { token: world.adminToken });
      expect(response.status).toBe(400);
      expect(response.body.error.param).toBe('id');
    }
    const chatId = await startChat(world, world.adminToken);
    const unknown = await request(world.server, 'GET', `/api/chats/${chatId}/run?after=<script>`, { token: world.adminToken });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).not.toContain('<script>');
    expect((await request(world.server, 'GET', `/api/chats/99999999/run`, { token: world.adminToken })).status).toBe(404);
  });
});

describe.each(TEST_DIALECTS)('bounds on running answers on %s', (dialect) => {
  let world: ChatWorld;

  beforeAll(async () => {
    world = await startChatWorld(dialect, {
      UPSTREAM_TIMEOUT_MS: '20000',
      CHAT_RUNS_PER_USER_MAX: '2',
      CHAT_RUN_UNWATCHED_SECONDS_MAX: '1',
    });
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  it('refuses a third running answer with 429 chat_runs_limit, and keeps no question for it', async () => {
    world.provider.reset();
    const chats = [
      await startChat(world, world.adminToken),
      await startChat(world, world.adminToken),
      await startChat(world, world.adminToken),
    ];
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 40 });
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 40 });
    const first = await askAndReadUntil(world, chats[0]!, 'part0 ');
    const second = await askAndReadUntil(world, chats[1]!, 'part0 ');
    const third = await request(world.server, 'POST', `/api/chats/${chats[2]}/messages`, {
      token: world.adminToken,
      body: { content: 'Three?' },
    });
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('chat_runs_limit');
    const thirdChat = await request(world.server, 'GET', `/api/chats/${chats[2]}`, { token: world.adminToken });
    expect(thirdChat.body.messages).toEqual([]);
    await Promise.all([first.rest(), second.rest()]);
  });

  it('ends an answer nobody watches after CHAT_RUN_UNWATCHED_SECONDS_MAX, keeping what it had as stopped', async () => {
    world.provider.reset();
    const chatId = await startChat(world, world.adminToken);
    const pieces = Array.from({ length: 200 }, (_, index) => `slow${index} `);
    world.provider.enqueue({ chunks: pieces, chunkDelayMs: 100 });
    const asking = await askAndReadUntil(world, chatId, 'slow0 ');
    asking.abort.abort();
    const messages = await eventually(
      () => chatMessages(world, chatId),
      (stored) => stored.length === 2,
      'the unwatched answer kept',
      BACKGROUND_WAIT_MILLISECONDS,
    );
    expect(messages[1]).toMatchObject({ role: 'assistant', finish_reason: 'stopped' });
    expect(messages[1]!.content.length).toBeLessThan(pieces.join('').length);
  });
});
