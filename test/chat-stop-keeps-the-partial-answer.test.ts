/**
 * Stop (`POST /api/chats/{id}/run/stop`, as the chat page's Stop button sends) keeps what was said
 * so far: the chat then holds the partial answer with finish reason `stopped`, and the
 * provider request is abandoned at once. A failed model call keeps the question (so it can be
 * asked again) but no half answer, and says what failed: an HTTP error before the first byte, or
 * the stream's error event after it, never `[DONE]`.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from './support/chat-processes.js';
import { askAndReadUntil, chatMessages, chatWorldSuite, serverSentEvents, startChat } from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';

const BACKGROUND_WAIT_MILLISECONDS = 10_000;

describe.each(TEST_DIALECTS)('stopping and failing kept answers on %s', (dialect) => {
  const world = chatWorldSuite(dialect, { UPSTREAM_TIMEOUT_MS: '5000' });

  it('keeps the partial answer with finish_reason "stopped" when Stop is pressed mid-stream', async () => {
    const chatId = await startChat(world, world.adminToken);
    const pieces = Array.from({ length: 40 }, (_, index) => `part${index} `);
    world.provider.enqueue({ chunks: pieces, chunkDelayMs: 100 });
    const asking = await askAndReadUntil(world, chatId, 'part2 ');
    const stopped = await request(world.server, 'POST', `/api/chats/${chatId}/run/stop`, { token: world.adminToken });
    expect(stopped.status).toBe(204);
    asking.abort.abort();

    const messages = await eventually(
      () => chatMessages(world, chatId),
      (stored) => stored.length === 2,
      'the partial answer kept',
      BACKGROUND_WAIT_MILLISECONDS,
    );
    const answer = messages[1]!;
    expect(answer).toMatchObject({ role: 'assistant', finish_reason: 'stopped' });
    expect(answer.content.startsWith('part0 part1 part2 ')).toBe(true);
    expect(answer.content.length).toBeLessThan(pieces.join('').length);
    await eventually(
      async () => world.provider.disconnectedRequests(),
      (count) => count === 1,
      'the provider request abandoned',
      BACKGROUND_WAIT_MILLISECONDS,
    );
  });

  it('keeps the question but no answer when the model call fails, and says so with an HTTP error', async () => {
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ status: 500 });
    const failed = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: world.adminToken,
      body: { content: 'Will this fail?' },
    });
    expect(failed.status).toBe(502);
    expect(failed.body.error.code).toBe('upstream_error');
    const messages = await chatMessages(world, chatId);
    expect(messages.map((message) => message.role)).toEqual(['user']);
    expect(messages[0]!.content).toBe('Will this fail?');

    // Regenerate answers the question that was left unanswered.
    world.provider.enqueue({ text: 'Now it works.' });
    const retried = await request(world.server, 'POST', `/api/chats/${chatId}/regenerate`, { token: world.adminToken, body: {} });
    expect(retried.status).toBe(200);
    expect((await chatMessages(world, chatId)).map((message) => message.content)).toEqual(['Will this fail?', 'Now it works.']);
  });

  it('saves no half answer when the model stream breaks after the first byte, and ends the stream with an error', async () => {
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ chunks: ['Half ', 'an ', 'answer'], dropAfterChunks: 2 });
    const broken = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: world.adminToken,
      body: { content: 'Break please', stream: true },
    });
    expect(broken.status).toBe(200);
    const events = serverSentEvents(broken.text) as Record<string, any>[];
    expect(events).not.toContain('[DONE]');
    expect(events.at(-1)?.error?.code).toBe('upstream_error');
    expect((await chatMessages(world, chatId)).map((message) => message.role)).toEqual(['user']);

    world.provider.enqueue({ chunks: ['Half ', 'an ', 'answer'], dropAfterChunks: 2 });
    const brokenPlain = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: world.adminToken,
      body: { content: 'Break again' },
    });
    expect(brokenPlain.status).toBe(502);
    expect((await chatMessages(world, chatId)).map((message) => message.role)).toEqual(['user', 'user']);
  });
});
