/**
 * Two real server processes on PostgreSQL share one store: an answer started on process A, whose
 * client left, is rejoined through process B from its first word to its end (through the store,
 * not A's memory), and kept whole; Stop sent to B stops the answer A produces and keeps its part.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { serverSentEvents } from './support/chat-world.js';
import {
  eventually,
  openStream,
  startChatProcesses,
  startProcessChat,
  streamedContent,
  type ChatProcesses,
} from './support/chat-processes.js';
import type { ServerProcess } from './support/server-process.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { request } from './support/test-server.js';

const PIECES = Array.from({ length: 30 }, (_, index) => `part${index} `);
const WHOLE = PIECES.join('');

describe.runIf(TEST_DIALECTS.includes('postgres'))('an answer rejoined through another process on postgres', () => {
  let world: ChatProcesses;
  let processA: ServerProcess;
  let processB: ServerProcess;

  beforeAll(async () => {
    world = await startChatProcesses('postgres');
    processA = world.processes[0]!;
    processB = await world.startProcess();
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  beforeEach(() => {
    world.provider.reset();
  });

  const messagesOn = async (server: ServerProcess, chatId: number) =>
    (await request(server, 'GET', `/api/chats/${chatId}`, { token: world.learner.token })).body.messages as Record<string, any>[];

  it('follows, through process B, the whole answer process A produces after its client left', async () => {
    const chatId = await startProcessChat(world, processA, world.learner.token);
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 60 });
    const asking = await openStream(processA.baseUrl, `/api/chats/${chatId}/messages`, {
      token: world.learner.token,
      method: 'POST',
      body: { content: 'Tell me a long story', stream: true },
    });
    expect(asking.status).toBe(200);
    await asking.readUntil('part1 ');
    asking.abort();

    const rejoined = await openStream(processB.baseUrl, `/api/chats/${chatId}/run`, { token: world.learner.token });
    expect(rejoined.status).toBe(200);
    const text = await rejoined.rest();
    expect(streamedContent(text)).toBe(WHOLE);
    expect(serverSentEvents(text).at(-1)).toBe('[DONE]');
    expect((await messagesOn(processB, chatId))[1]).toMatchObject({ role: 'assistant', content: WHOLE, finish_reason: 'stop' });
    // The answer came from the one request A sent upstream: B produced nothing of its own.
    expect(world.provider.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'))).toHaveLength(1);
    expect((await request(processB, 'GET', `/api/chats/${chatId}/run`, { token: world.learner.token })).status).toBe(204);
  });

  it('stops, from process B, the answer process A produces, keeping its part', async () => {
    const chatId = await startProcessChat(world, processA, world.learner.token);
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 100 });
    const asking = await openStream(processA.baseUrl, `/api/chats/${chatId}/messages`, {
      token: world.learner.token,
      method: 'POST',
      body: { content: 'Tell me a long story', stream: true },
    });
    await asking.readUntil('part2 ');
    const stopped = await request(processB, 'POST', `/api/chats/${chatId}/run/stop`, { token: world.learner.token });
    expect(stopped.status).toBe(204);
    const answer = (await messagesOn(processB, chatId))[1]!;
    expect(answer).toMatchObject({ role: 'assistant', finish_reason: 'stopped' });
    expect(answer.content.startsWith('part0 part1 part2 ')).toBe(true);
    expect(answer.content.length).toBeLessThan(WHOLE.length);
    expect(streamedContent(await asking.rest()).length).toBeLessThan(WHOLE.length);
    await eventually(
      async () => world.provider.disconnectedRequests(),
      (count) => count === 1,
      'the upstream request of the stopped answer closed',
    );
  });
});
