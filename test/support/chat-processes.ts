/**
 * Chats served by real server processes (`src/main.ts`, test/support/server-process.ts) sharing one
 * store, for the suites where an answer must outlive, or move between, processes: a fake provider
 * that can stream slowly, a published assistant that answers through it, a learner allowed to chat
 * with it, and a way to start (and kill) more processes over the same database.
 */
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../fakes/fake-openai-server.js';
import { serverSentEvents } from './chat-world.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { createTestDatabase, type Dialect, type TestDatabase } from './test-databases.js';
import { createUser, loginAsAdmin, request, type CreatedUser } from './test-server.js';

export interface ChatProcesses {
  database: TestDatabase;
  provider: FakeOpenAiServer;
  /** Every process started so far; the first set the world up. */
  processes: ServerProcess[];
  adminToken: string;
  learner: CreatedUser;
  assistantId: number;
  /** Starts one more process over the same store. */
  startProcess(): Promise<ServerProcess>;
  close(): Promise<void>;
}

export const ASSISTANT_NAME = 'Biology tutor';

export async function startChatProcesses(dialect: Dialect, environment: Record<string, string> = {}): Promise<ChatProcesses> {
  const provider = await startFakeOpenAiServer();
  const database = await createTestDatabase(dialect);
  const processEnvironment = {
    OPENAI_BASE_URL: provider.baseUrl,
    OPENAI_API_KEY: 'sk-test',
    OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
    UPSTREAM_TIMEOUT_MS: '20000',
    ...environment,
  };
  const processes: ServerProcess[] = [];
  const startProcess = async (): Promise<ServerProcess> => {
    const started = await startServerProcess(database, processEnvironment);
    processes.push(started);
    return started;
  };
  const first = await startProcess();
  const adminToken = await loginAsAdmin(first);
  const learner = await createUser(first, adminToken, { email: 'learner@merino.test', role: 'learner' });
  const created = await request(first, 'POST', '/api/assistants', {
    token: adminToken,
    body: {
      name: ASSISTANT_NAME,
      system_prompt: 'You teach biology.',
      metadata: { assistant_type: 'multi_tool', connector: 'openai', llm: 'gpt-4o-mini', tools: [] },
    },
  });
  if (created.status !== 201) throw new Error(`creating the assistant failed: ${created.text}`);
  const assistantId = created.body.id as number;
  await request(first, 'PUT', `/api/assistants/${assistantId}/publish`, { token: adminToken, body: { published: true } });
  return {
    database,
    provider,
    processes,
    adminToken,
    learner,
    assistantId,
    startProcess,
    async close() {
      for (const running of processes.splice(0)) await running.kill();
      await provider.close();
      await database.drop();
    },
  };
}

/** Starts a chat with the assistant as `token`, on `server`, and returns its id. */
export async function startProcessChat(world: ChatProcesses, server: ServerProcess, token: string): Promise<number> {
  const response = await request(server, 'POST', '/api/chats', { token, body: { assistant_id: world.assistantId } });
  if (response.status !== 201) throw new Error(`starting a chat failed with ${response.status}: ${response.text}`);
  return response.body.id as number;
}

export interface OpenStream {
  status: number;
  /** Reads until the text received so far includes `seen` (or the stream ends); returns it. */
  readUntil(seen: string): Promise<string>;
  /** Reads to the end; returns everything received. */
  rest(): Promise<string>;
  /** Goes away, as a closed tab does. */
  abort(): void;
}

/** Sends a request whose answer is a stream of server-sent events, and reads it as told. */
export async function openStream(
  baseUrl: string,
  path: string,
  options: { token: string; method?: 'GET' | 'POST'; body?: unknown },
): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(`${baseUrl}${path}`, {
    method: options.method ?? 'GET',
    headers: {
      authorization: `Bearer ${options.token}`,
      accept: 'text/event-stream',
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: controller.signal,
  });
  // A 204 (nothing running) has no body: there is nothing to read.
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let received = '';
  const readUntil = async (seen: string | undefined): Promise<string> => {
    while (reader !== undefined && (seen === undefined || !received.includes(seen))) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      received += decoder.decode(value, { stream: true });
    }
    return received;
  };
  return { status: response.status, readUntil, rest: () => readUntil(undefined), abort: () => controller.abort() };
}

/** The answer text a stream of server-sent events carried. */
export function streamedContent(streamText: string): string {
  return (serverSentEvents(streamText) as Record<string, any>[])
    .map((event) => (typeof event === 'object' ? (event.choices?.[0]?.delta?.content ?? '') : ''))
    .join('');
}

/** Polls `read` until `done` says so; a condition still false after `timeoutMilliseconds` fails with what was seen last. */
export async function eventually<Value>(
  read: () => Promise<Value>,
  done: (value: Value) => boolean,
  what: string,
  timeoutMilliseconds = 60_000,
): Promise<Value> {
  const deadline = Date.now() + timeoutMilliseconds;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`never happened: ${what}; last seen: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
