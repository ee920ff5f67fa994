/**
 * A process killed (`kill -9`) mid-answer leaves its run's lease to lapse; then the run is marked
 * interrupted and the part of the answer it had logged is kept as the chat's answer, with finish
 * reason `interrupted`, so the learner sees what had arrived rather than nothing. The run sweep of
 * the surviving process does it without anyone asking, and later removes the run's event log. On
 * both dialects, with real server processes sharing the store.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/store/store.js';
import {
  eventually,
  openStream,
  startChatProcesses,
  startProcessChat,
  streamedContent,
  type ChatProcesses,
} from './support/chat-processes.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { request } from './support/test-server.js';

const PIECES = Array.from({ length: 200 }, (_, index) => `part${index} `);
const WHOLE = PIECES.join('');

describe.each(TEST_DIALECTS)('an answer whose process was killed on %s', (dialect) => {
  let world: ChatProcesses | undefined;
  let store: Store | undefined;

  afterEach(async () => {
    await store?.close();
    await world?.close();
    world = store = undefined;
  });

  it('is kept as interrupted with what it had logged, and its log is removed later', { timeout: 120_000 }, async () => {
    // A short lease, so the run of the killed process is known as interrupted soon.
    world = await startChatProcesses(dialect, { CHAT_RUN_LEASE_MS: '1000' });
    const [doomed] = world.processes;
    const survivor = await world.startProcess();
    const token = world.learner.token;
    const chatId = await startProcessChat(world, doomed!, token);
    world.provider.enqueue({ chunks: PIECES, chunkDelayMs: 100 });
    const asking = await openStream(doomed!.baseUrl, `/api/chats/${chatId}/messages`, {
      token,
      method: 'POST',
      body: { content: 'Tell me a long story', stream: true },
    });
    expect(asking.status).toBe(200);
    // Followed through the survivor, which reads the store: what it has seen is surely logged.
    const follower = await openStream(survivor.baseUrl, `/api/chats/${chatId}/run`, { token });
    expect(follower.status).toBe(200);
    expect(streamedContent(await follower.readUntil('part3 '))).toContain('part3 ');
    // Nobody looks at the chat's run from now on: the survivor's run sweep alone finds it cut off.
    follower.abort();
    await doomed!.kill();

    const messages = await eventually(
      async () => (await request(survivor, 'GET', `/api/chats/${chatId}`, { token })).body.messages as Record<string, any>[],
      (kept) => kept.length === 2,
      'the interrupted answer kept',
    );
    expect(messages[1]).toMatchObject({ role: 'assistant', finish_reason: 'interrupted' });
    expect(messages[1]!.content.startsWith('part0 part1 part2 part3 ')).toBe(true);
    expect(messages[1]!.content.length).toBeLessThan(WHOLE.length);
    expect((await request(survivor, 'GET', `/api/chats/${chatId}/run`, { token })).status).toBe(204);

    // The run sweep removes the ended run and its log a lease later.
    store = await openStore({ databaseUrl: world.database.databaseUrl, dataDirectory: world.database.dataDirectory, poolSize: 2 });
    const openedStore = store;
    const runsOfChat = () => openedStore.db.selectFrom('chat_runs').select('id').where('chat_id', '=', chatId);
    await eventually(
      async () =>
        (await openedStore.db.selectFrom('chat_run_events').select('id').where('run_id', 'in', runsOfChat()).execute()).length +
        (await runsOfChat().execute()).length,
      (left) => left === 0,
      'the run and its event log removed',
    );

    // The chat takes a new question at once.
    world.provider.enqueue({ text: 'Short.' });
    const next = await request(survivor, 'POST', `/api/chats/${chatId}/messages`, { token, body: { content: 'Again' } });
    expect(next.status).toBe(200);
  });
});
