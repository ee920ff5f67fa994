/**
 * The sources a learner is shown with a chat answer, over real HTTP on both stores, with the fake
 * provider: each is a passage of a knowledge-base document with its text, section and page, so
 * the page can group them by document; none is below the assistant's least similarity (nor any at
 * similarity 0); the rubric the assistant grades with is never one; and an answer stopped mid-way
 * keeps the sources it was given.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatWorld, type ChatWorld } from './support/chat-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, request, type CreatedUser } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { addSourcedAssistant, QUESTION, WEAK_PASSAGE, type SourcedAssistant } from './support/sourced-assistant.js';

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

describe.each(TEST_DIALECTS)('the sources of a chat answer on %s', (dialect) => {
  let world: ChatWorld;
  let learner: CreatedUser;
  let sourced: SourcedAssistant;

  beforeAll(async () => {
    world = await startChatWorld(dialect, { UPSTREAM_TIMEOUT_MS: '5000' });
    learner = await createUser(world.server, world.adminToken, { email: `sources-learner-${dialect}@merino.test`, role: 'learner' });
    sourced = await addSourcedAssistant(world.server, world.adminToken);
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  const chatWithSourcedAssistant = async (): Promise<number> => {
    const chat = await request(world.server, 'POST', '/api/chats', { token: learner.token, body: { assistant_id: sourced.assistantId } });
    expect(chat.status, chat.text).toBe(201);
    return chat.body.id as number;
  };
  const answerOf = async (chatId: number) =>
    ((await request(world.server, 'GET', `/api/chats/${chatId}`, { token: learner.token })).body.messages as Record<string, any>[]).at(1);

  it('lists the passages used, each with its document, text, section and page, none under the threshold, and not the rubric', async () => {
    world.provider.enqueue({ text: 'Plants make sugar from light [1].' });
    const chatId = await chatWithSourcedAssistant();
    const answered = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: learner.token,
      body: { content: QUESTION },
    });
    expect(answered.status, answered.text).toBe(200);
    const sources = (await answerOf(chatId))!.sources as Record<string, any>[];
    expect(sources.map((source) => [source.title, source.section, source.page]).sort()).toEqual([
      ['photosynthesis.md', 'Calvin cycle', 3],
      ['photosynthesis.md', 'Light reactions', 2],
    ]);
    for (const source of sources) {
      expect(source).toMatchObject({ tool: 'simple_rag', document_id: expect.any(String), knowledge_base_id: expect.any(String) });
      expect(source.text).toMatch(/photosynthesis/i);
      expect(source.similarity).toBeGreaterThanOrEqual(sourced.leastSimilarity);
    }
    // The weak match is under the assistant's least similarity; the rubric is an instruction.
    expect(JSON.stringify(sources)).not.toContain(WEAK_PASSAGE.slice(0, 30));
    expect(sources.some((source) => source.tool === 'rubric_rag' || String(source.url).startsWith('rubric:'))).toBe(false);
    // The model was still given the rubric to grade with.
    expect(JSON.stringify(world.provider.requests.at(-1)?.body)).toContain('Lab report rubric');
  });

  it('keeps the sources of an answer stopped mid-stream', async () => {
    const chatId = await chatWithSourcedAssistant();
    const pieces = Array.from({ length: 40 }, (_, index) => `part${index} `);
    world.provider.enqueue({ chunks: pieces, chunkDelayMs: 100 });
    const abort = new AbortController();
    const response = await fetch(`${world.server.baseUrl}/api/chats/${chatId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${learner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: QUESTION, stream: true }),
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (!received.includes('part1 ')) received += decoder.decode((await reader.read()).value, { stream: true });
    // The sources went out before the text, so a client has them while the answer streams.
    expect(received.indexOf('"sources"')).toBeGreaterThanOrEqual(0);
    expect(received.indexOf('"sources"')).toBeLessThan(received.indexOf('part0 '));
    // Stop is the learner's button (the answer belongs to the chat, so leaving alone would not stop it).
    const stopped = await fetch(`${world.server.baseUrl}/api/chats/${chatId}/run/stop`, {
      method: 'POST',
      headers: { authorization: `Bearer ${learner.token}` },
    });
    expect(stopped.status).toBe(204);
    abort.abort();

    const answer = await eventually(
      () => answerOf(chatId),
      (stored) => stored !== undefined,
    );
    expect(answer).toMatchObject({ role: 'assistant', finish_reason: 'stopped' });
    expect((answer!.sources as Record<string, any>[]).map((source) => source.section).sort()).toEqual(['Calvin cycle', 'Light reactions']);
  });
});
