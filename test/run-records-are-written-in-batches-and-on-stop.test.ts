/**
 * Proves that usage logs and traces are written off the response path, in batches, on both
 * stores: with a window far longer than the test, answers arrive while their records wait; the
 * records are written together once RUN_RECORD_BATCH_MAX runs are waiting; a trace is readable at
 * once through the process that ran it; and a graceful stop writes whatever is still queued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/store/store.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

/** The longest window there is; every check below that waits gives up well before it ends. */
const WINDOW_MILLISECONDS = 5_000;
const BATCH_MAXIMUM = 3;

describe.each(TEST_DIALECTS)('run records written in batches on %s', (dialect) => {
  let database: TestDatabase;
  let server: TestServer;
  let token: string;
  let model: string;
  let assistantId: number;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    server = await startTestServer(dialect, {
      database,
      environment: { RUN_RECORD_WINDOW_MS: String(WINDOW_MILLISECONDS), RUN_RECORD_BATCH_MAX: String(BATCH_MAXIMUM) },
    });
    token = await loginAsAdmin(server);
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: { name: 'Echo', metadata: { connector: 'bypass', llm: 'simple-bypass', verbose: true } },
    });
    expect(created.status, created.text).toBe(201);
    assistantId = created.body.id;
    model = `lamb_assistant.${assistantId}`;
  });

  afterAll(async () => {
    await database.drop();
  });

  async function chat(text: string): Promise<string> {
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model, messages: [{ role: 'user', content: text }] },
    });
    expect(response.status, response.text).toBe(200);
    return response.body.trace_id as string;
  }

  async function usageRows(db = server.store.db): Promise<number> {
    const rows = await db.selectFrom('usage_logs').select('id').where('assistant_id', '=', assistantId).execute();
    return rows.length;
  }

  it('answers before the records are written, then writes them together once the batch is full', async () => {
    await chat('first');
    await chat('second');
    expect(await usageRows()).toBe(0);
    await chat('third');
    // Waiting at most 2 s of the 5 s window: only the full batch can have written them by then.
    for (let attempt = 0; attempt < 40 && (await usageRows()) < BATCH_MAXIMUM; attempt += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await usageRows()).toBe(BATCH_MAXIMUM);
  });

  it('reads a trace at once through the process that ran it', async () => {
    const traceId = await chat('traced');
    const trace = await request(server, 'GET', `/api/traces/${traceId}`, { token });
    expect(trace.status, trace.text).toBe(200);
    expect(trace.body).toMatchObject({ id: traceId, assistant_id: assistantId, outcome: 'completed' });
  });

  it('writes what is still queued when the server stops', async () => {
    const before = await usageRows();
    await chat('last words');
    await server.close();
    const reopened = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 1 });
    try {
      expect(await usageRows(reopened.db)).toBe(before + 1);
    } finally {
      await reopened.close();
    }
  });
});
