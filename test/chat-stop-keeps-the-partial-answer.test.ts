/**
 * Stop (`POST /api/chats/{id}/run/stop`, as the chat page's Stop button sends) keeps what was said
 * so far: the chat then holds the partial answer with finish reason `stopped`, and the
 * provider request is abandoned at once. A failed model call keeps the question (so it can be
 * asked again) but no half answer, and says what failed: an HTTP error before the first byte, or
 * the stream's error event after it, never `[DONE]`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serverSentEvents, startChat, startChatWorld, type ChatWorld } from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const BACKGROUND_WAIT_MILLISECONDS = 10_000;

async function eventually<Value>(read: () => Promise<Value>, done: (value: Value) => boolean): Promise<Value> {
  const deadline = Date.now() + BACKGROUND_WAIT_MILLISECONDS;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`never happened; last seen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each(TEST_DIALECTS)('stopping and failing kept answers on %s', (dialect) => {
  let world: ChatWorld;

  beforeAll(async () => {
    world = await startChatWorld(dialect, { UPSTREAM_TIMEOUT_MS: '5000' });
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  beforeEach(() => {
    world.provider.reset();
  });

  const messagesOf = async (chatId: number) =>
    (await request(world.server, 'GET', `/api/chats/${chatId}`, { token: world.adminToken })).body.messages as Record<string, any>[];

  it('keeps the partial answer with finish_reason "stopped" when Stop is pressed mid-stream', async () => {
    const chatId = await startChat(world, world.adminToken);
    const pieces = Array.from({ length: 40 }, (_, index) => `part${index} `);
    world.provider.enqueue({ chunks: pieces, chunkDelayMs: 100 });
    const abort = new AbortController();
    const response = await fetch(`${world.server.baseUrl}/api/chats/${chatId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Tell me a long story', stream: true }),
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('part2 ')) {
      const { value } = await reader.read();
      received += decoder.decode(value, { stream: true });
    }
    const stopped = await request(world.server, 'POST', `/api/chats/${chatId}/run/stop`, { token: world.adminToken });
    expect(stopped.status).toBe(204);
    abort.abort();

    const messages = await eventually(
      () => messagesOf(chatId),
      (stored) => stored.length === 2,
    );
    const answer = messages[1]!;
    expect(answer).toMatchObject({ role: 'assistant', finish_reason: 'stopped' });
    expect(answer.content.startsWith('part0 part1 part2 ')).toBe(true);
    expect(answer.content.length).toBeLessThan(pieces.join('').length);
    await eventually(
      async () => world.provider.disconnectedRequests(),
      (count) => count === 1,
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
    const messages = await messagesOf(chatId);
    expect(messages.map((message) => message.role)).toEqual(['user']);
    expect(messages[0]!.content).toBe('Will this fail?');

    // Regenerate answers the question that was left unanswered.
    world.provider.enqueue({ text: 'Now it works.' });
    const retried = await request(world.server, 'POST', `/api/chats/${chatId}/regenerate`, { token: world.adminToken, body: {} });
    expect(retried.status).toBe(200);
    expect((await messagesOf(chatId)).map((message) => message.content)).toEqual(['Will this fail?', 'Now it works.']);
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
    expect((await messagesOf(chatId)).map((message) => message.role)).toEqual(['user']);

    world.provider.enqueue({ chunks: ['Half ', 'an ', 'answer'], dropAfterChunks: 2 });
    const brokenPlain = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: world.adminToken,
      body: { content: 'Break again' },
    });
    expect(brokenPlain.status).toBe(502);
    expect((await messagesOf(chatId)).map((message) => message.role)).toEqual(['user', 'user']);
  });
});
