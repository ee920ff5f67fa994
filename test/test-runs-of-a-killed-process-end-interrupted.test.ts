/**
 * Proves on both dialects that a test run never stays `running` after its process dies: a real
 * server process (`src/main.ts`) sharing the store with an in-process server starts a run whose
 * second case hangs in the model; while that process lives, its run survives the other server's
 * sweeps and reads for several leases (it renews its lease, TEST_RUN_LEASE_MS); once it is killed
 * with SIGKILL, the sweep marks the run `interrupted`, its finished result kept, and the run no
 * longer counts against TEST_RUNS_RUNNING_PER_ASSISTANT_MAX, so a new run starts. And that a run
 * held by a process of another machine (whose pid cannot be looked at) is left alone until its
 * lease lapses, then interrupted.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sweepTestRuns } from '../src/evaluation/test-run-sweep.js';
import { LONG_ANSWER, scriptedReply, startAssistantTestWorld, type AssistantTestWorld } from './support/assistant-test-world.js';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { request } from './support/test-server.js';

const LEASE_MILLISECONDS = 1_000;
/** Longer than the whole test: the hanging case ends only when its process is killed. */
const HANG_MILLISECONDS = 120_000;
const SETTLE_TIMEOUT_MILLISECONDS = 30_000;

async function waitUntil(condition: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MILLISECONDS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(TEST_DIALECTS)('test runs of a killed process on %s', (dialect) => {
  let database: TestDatabase | undefined;
  let world: AssistantTestWorld | undefined;
  let child: ServerProcess | undefined;

  afterEach(async () => {
    await child?.kill();
    await world?.close();
    await database?.drop();
    child = world = database = undefined;
  });

  it('survive while their process lives, and end interrupted with their finished results once it is killed', async () => {
    database = await createTestDatabase(dialect);
    const environment = { TEST_RUN_LEASE_MS: String(LEASE_MILLISECONDS), TEST_RUNS_RUNNING_PER_ASSISTANT_MAX: '1' };
    world = await startAssistantTestWorld(dialect, environment, database);
    const { assistantId, owner, provider } = world;
    provider.setResponder((recorded) => {
      const reply = scriptedReply(recorded);
      return JSON.stringify(recorded.body).includes('hang here') ? { ...reply, delayMs: HANG_MILLISECONDS } : reply;
    });
    const path = `/api/assistants/${assistantId}`;
    for (const [name, question] of [
      ['quick', 'How do cells divide?'],
      ['hangs', 'How do cells divide? hang here'],
    ])
      expect(
        (
          await request(world.server, 'POST', `${path}/tests`, {
            token: owner.token,
            body: { name, kind: 'single_turn', turns: [question], expectations: [{ type: 'contains', phrases: ['mitosis'] }] },
          })
        ).status,
      ).toBe(201);
    child = await startServerProcess(database, {
      ...environment,
      OPENAI_BASE_URL: provider.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    });

    const started = await request(child, 'POST', `${path}/test-runs`, { token: owner.token, body: { cases: 'all' } });
    expect(started.status, started.text).toBe(201);
    const runPath = `${path}/test-runs/${started.body.id}`;
    const read = () => request(world!.server, 'GET', runPath, { token: owner.token });
    await waitUntil(async () => (await read()).body.results.length === 1, 'the quick case finished on the child process');

    // Three leases later, read and swept by the other server, the live process's run still runs.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MILLISECONDS * 3));
    expect(await sweepTestRuns(world.server.store.db)).toBe(0);
    const live = await read();
    expect(live.body.status).toBe('running');
    const refused = await request(world.server, 'POST', `${path}/test-runs`, { token: owner.token, body: { cases: 'all' } });
    expect(refused.status, refused.text).toBe(429);
    expect(refused.body.error.code).toBe('test_runs_limit');

    await child.kill();
    // This sweep marks it, unless the server's own periodic sweep (every lease) came first: the
    // run ends interrupted once either way, which the reads and the last sweep below check.
    expect(await sweepTestRuns(world.server.store.db)).toBeLessThanOrEqual(1);
    await waitUntil(async () => (await read()).body.status === 'interrupted', "the killed process's run ended interrupted");
    const interrupted = await read();
    expect(interrupted.body.status).toBe('interrupted');
    expect(interrupted.body.finished_at).not.toBeNull();
    expect(interrupted.body.results).toHaveLength(1);
    expect(interrupted.body.results[0]).toMatchObject({ case_name: 'quick', verdict: 'pass', answer: LONG_ANSWER });
    expect(await sweepTestRuns(world.server.store.db)).toBe(0);

    const next = await request(world.server, 'POST', `${path}/test-runs`, { token: owner.token, body: { cases: 'all' } });
    expect(next.status, next.text).toBe(201);
    await request(world.server, 'POST', `${path}/test-runs/${next.body.id}/stop`, { token: owner.token });
  });

  it('leave a run of another machine alone until its lease lapses, then end it interrupted', async () => {
    database = await createTestDatabase(dialect);
    world = await startAssistantTestWorld(dialect, {}, database);
    const { assistantId, owner, provider, server } = world;
    provider.setResponder((recorded) => ({ ...scriptedReply(recorded), delayMs: HANG_MILLISECONDS }));
    const path = `/api/assistants/${assistantId}`;
    const body = {
      name: 'hangs',
      kind: 'single_turn',
      turns: ['How do cells divide?'],
      expectations: [{ type: 'contains', phrases: ['mitosis'] }],
    };
    expect((await request(server, 'POST', `${path}/tests`, { token: owner.token, body })).status).toBe(201);
    const started = await request(server, 'POST', `${path}/test-runs`, { token: owner.token, body: { cases: 'all' } });
    expect(started.status, started.text).toBe(201);
    // As if another machine ran it: this process loses the lease and no pid here can answer for it.
    const handOver = (expiresAt: string) =>
      server.store.db
        .updateTable('assistant_test_runs')
        .set({ lease_owner: 'another-machine:4242:0123456789ab', lease_expires_at: expiresAt })
        .where('id', '=', started.body.id)
        .execute();
    await handOver(new Date(Date.now() + 60_000).toISOString());
    expect(await sweepTestRuns(server.store.db)).toBe(0);
    expect((await request(server, 'GET', `${path}/test-runs/${started.body.id}`, { token: owner.token })).body.status).toBe('running');
    await handOver(new Date(Date.now() - 1_000).toISOString());
    expect(await sweepTestRuns(server.store.db)).toBe(1);
    expect((await request(server, 'GET', `${path}/test-runs/${started.body.id}`, { token: owner.token })).body.status).toBe('interrupted');
  });
});
