/**
 * A server for the chats suites: a fake OpenAI provider, an admin, and an assistant that reads a
 * file (so its answers carry a tool step and a source) and answers through the fake; plus a
 * reader for the server-sent events of a streamed answer, and the admin's side of a kept chat: a
 * question streamed and read part-way, and the messages the chat then holds.
 */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../fakes/fake-openai-server.js';
import type { Dialect } from './test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './test-server.js';

export interface ChatWorld {
  server: TestServer;
  provider: FakeOpenAiServer;
  adminToken: string;
  /** A published multi-tool assistant with the single-file tool, owned by the admin. */
  assistantId: number;
  close(): Promise<void>;
}

export const NOTES_FILE_NAME = 'cells.md';

async function uploadNotes(server: TestServer, token: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob(['Cells divide by mitosis.'], { type: 'text/markdown' }), NOTES_FILE_NAME);
  const response = await fetch(`${server.baseUrl}/api/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (response.status !== 201) throw new Error(`upload failed with ${response.status}`);
  return ((await response.json()) as { file_path: string }).file_path;
}

export async function startChatWorld(dialect: Dialect, environment: Record<string, string> = {}): Promise<ChatWorld> {
  const provider = await startFakeOpenAiServer();
  const server = await startTestServer(dialect, {
    environment: { OPENAI_BASE_URL: provider.baseUrl, OPENAI_API_KEY: 'sk-test', ...environment },
  });
  const adminToken = await loginAsAdmin(server);
  const filePath = await uploadNotes(server, adminToken);
  const created = await request(server, 'POST', '/api/assistants', {
    token: adminToken,
    body: {
      name: 'Biology tutor',
      system_prompt: 'You teach biology.',
      prompt_template: 'Notes: {context}\n\nQuestion: {user_input}',
      metadata: {
        assistant_type: 'multi_tool',
        connector: 'openai',
        llm: 'gpt-4o-mini',
        tools: [{ type: 'single_file_rag', enabled: true, config: { file_path: filePath } }],
      },
    },
  });
  if (created.status !== 201) throw new Error(`creating the assistant failed: ${created.text}`);
  const assistantId = created.body.id as number;
  await request(server, 'PUT', `/api/assistants/${assistantId}/publish`, { token: adminToken, body: { published: true } });
  return {
    server,
    provider,
    adminToken,
    assistantId,
    async close() {
      await server.close();
      await provider.close();
    },
  };
}

/** A chat world as a describe block sees it: the block's hooks start and close it, so it has no close() of its own. */
export type SuiteChatWorld = Omit<ChatWorld, 'close'>;

/**
 * A chat world for a describe block: started before its tests, closed after them, and the fake
 * provider's script and records emptied before each test. Its fields are set once beforeAll has run.
 */
export function chatWorldSuite(dialect: Dialect, environment: Record<string, string> = {}): SuiteChatWorld {
  const world = {} as SuiteChatWorld;
  let started: ChatWorld | undefined;
  beforeAll(async () => {
    started = await startChatWorld(dialect, environment);
    const { server, provider, adminToken, assistantId } = started;
    Object.assign(world, { server, provider, adminToken, assistantId });
  });
  afterAll(async () => {
    await started?.close();
  });
  beforeEach(() => {
    world.provider.reset();
  });
  return world;
}

/** The `data:` payloads of a finished event stream, `[DONE]` kept as the string. */
export function serverSentEvents(text: string): unknown[] {
  return text
    .split('\n\n')
    .map((block) => block.trim())
    .filter((block) => block.startsWith('data: '))
    .map((block) => {
      const data = block.slice('data: '.length);
      return data === '[DONE]' ? data : (JSON.parse(data) as unknown);
    });
}

/** Starts a chat with the world's assistant as `token` and returns its id. */
export async function startChat(world: SuiteChatWorld, token: string, title?: string): Promise<number> {
  const response = await request(world.server, 'POST', '/api/chats', {
    token,
    body: { assistant_id: world.assistantId, ...(title !== undefined && { title }) },
  });
  if (response.status !== 201) throw new Error(`starting a chat failed with ${response.status}: ${response.text}`);
  return response.body.id as number;
}

/** The messages a chat of the admin's holds, oldest first. */
export async function chatMessages(world: SuiteChatWorld, chatId: number): Promise<Record<string, any>[]> {
  return (await request(world.server, 'GET', `/api/chats/${chatId}`, { token: world.adminToken })).body.messages as Record<string, any>[];
}

export interface AnswerBeingRead {
  /** Goes away mid-answer, as a closed tab does. */
  abort: AbortController;
  /** Reads to the end of the stream; returns everything received. */
  rest(): Promise<string>;
}

/** Asks the admin's chat a question as a stream and reads it until `seen` has arrived; the caller decides what happens to the connection. */
export async function askAndReadUntil(world: SuiteChatWorld, chatId: number, seen: string): Promise<AnswerBeingRead> {
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
  while (!received.includes(seen)) {
    const { value, done } = await reader.read();
    if (done) break;
    received += decoder.decode(value, { stream: true });
  }
  const rest = async (): Promise<string> => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return received;
      received += decoder.decode(value, { stream: true });
    }
  };
  return { abort, rest };
}
