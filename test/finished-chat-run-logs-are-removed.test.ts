/**
 * The event log of a chat run is kept only while clients may still replay it: the run sweep
 * removes a run that ended more than a lease (CHAT_RUN_LEASE_MS) ago, with its events, and leaves
 * the answer it kept, a run that ended just now, and a run still running. On both dialects, with the
 * sweep's own clock given, so nothing waits for time to pass.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepChatRuns } from '../src/chats/chat-run-sweep.js';
import { startChat, startChatWorld, type ChatWorld } from './support/chat-world.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';

const LEASE_MILLISECONDS = 20_000;

describe.each(TEST_DIALECTS)('finished chat run logs on %s', (dialect) => {
  let world: ChatWorld;

  beforeAll(async () => {
    world = await startChatWorld(dialect, { CHAT_RUN_LEASE_MS: String(LEASE_MILLISECONDS) });
  });

  afterAll(async () => {
    await possiblyUnset(world)?.close();
  });

  const sweep = (now: number) =>
    sweepChatRuns(
      {
        db: world.server.store.db,
        dialect: world.server.store.dialect,
        leaseMilliseconds: LEASE_MILLISECONDS,
        runner: 'finished-chat-run-logs-test',
        keepAnswer: async () => {},
      },
      now,
    );

  const logOf = async (chatId: number) => {
    const { db } = world.server.store;
    const runsOfChat = () => db.selectFrom('chat_runs').select('id').where('chat_id', '=', chatId);
    const runs = await runsOfChat().execute();
    const events = await db.selectFrom('chat_run_events').select('id').where('run_id', 'in', runsOfChat()).execute();
    return { runs: runs.length, events: events.length };
  };

  it('are removed a lease after their run ended, and the kept answer stays', async () => {
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ text: 'Mitochondria make energy.' });
    const asked = await request(world.server, 'POST', `/api/chats/${chatId}/messages`, {
      token: world.adminToken,
      body: { content: 'What do mitochondria do?' },
    });
    expect(asked.status).toBe(200);
    const logged = await logOf(chatId);
    expect(logged.runs).toBe(1);
    expect(logged.events).toBeGreaterThan(0);

    // Just ended: a client rejoining now may still be replaying it.
    await sweep(Date.now());
    expect(await logOf(chatId)).toEqual(logged);

    const result = await sweep(Date.now() + LEASE_MILLISECONDS + 1_000);
    expect(result.removedEvents).toBeGreaterThanOrEqual(logged.events);
    expect(await logOf(chatId)).toEqual({ runs: 0, events: 0 });
    const kept = await request(world.server, 'GET', `/api/chats/${chatId}`, { token: world.adminToken });
    expect(kept.body.messages[1]).toMatchObject({ role: 'assistant', content: 'Mitochondria make energy.', finish_reason: 'stop' });
  });

  it('leave a running run and its log alone', async () => {
    const chatId = await startChat(world, world.adminToken);
    world.provider.enqueue({ chunks: Array.from({ length: 40 }, (_, index) => `slow${index} `), chunkDelayMs: 100 });
    const abort = new AbortController();
    const response = await fetch(`${world.server.baseUrl}/api/chats/${chatId}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${world.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'Slowly, please', stream: true }),
      signal: abort.signal,
    });
    const reader = response.body!.getReader();
    let received = '';
    while (!received.includes('slow1 ')) received += new TextDecoder().decode((await reader.read()).value);
    // Its lease is renewed long before this, so even a sweep "a lease later" finds it alive.
    await sweep(Date.now() + LEASE_MILLISECONDS / 2);
    const during = await logOf(chatId);
    expect(during.runs).toBe(1);
    expect(during.events).toBeGreaterThan(0);
    await request(world.server, 'POST', `/api/chats/${chatId}/run/stop`, { token: world.adminToken });
    abort.abort();
  });
});
