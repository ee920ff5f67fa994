/**
 * A server for the assistant-tests suites: a fake OpenAI provider scripted per prompt, an
 * organization whose small fast model (the judge) is the fake's, and a creator's assistant with a
 * context tool that reads a file (a source and a tool step on every answer) and a function tool
 * the model may call (list_documents). The fake answers:
 * - the judge (its instructions start with JUDGE_INSTRUCTIONS): by a marker in the criterion,
 *   `[judge:pass]`, `[judge:fail]`, `[judge:mixed]`, `[judge:slow]` (answers after the judge's
 *   time-out) or `[judge:garbage]` (no verdict);
 * - the assistant: `Mitosis.` when its system prompt says "Be brief", otherwise LONG_ANSWER; a
 *   question containing "list please" first calls list_documents once; one containing "slow"
 *   answers after SLOW_ANSWER_MILLISECONDS; one containing "until stopped" answers only after
 *   HELD_ANSWER_MILLISECONDS, longer than any test waits, so only a stop ends it.
 */
import { JUDGE_INSTRUCTIONS } from '../../src/evaluation/answer-judge.js';
import { startFakeOpenAiServer, lastUserMessageText, type FakeOpenAiServer, type ScriptedReply } from '../fakes/fake-openai-server.js';
import { isRecord, type RecordedRequest } from '../fakes/fake-http.js';
import type { Dialect, TestDatabase } from './test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './test-server.js';

export const LONG_ANSWER = 'Cells divide by mitosis: the cell copies its chromosomes and then the nucleus splits in two.';
export const BRIEF_ANSWER = 'Mitosis.';
export const SLOW_ANSWER_MILLISECONDS = 3_000;
export const HELD_ANSWER_MILLISECONDS = 600_000;
export const JUDGE_TIMEOUT_MILLISECONDS = 500;

export interface AssistantTestWorld {
  server: TestServer;
  provider: FakeOpenAiServer;
  adminToken: string;
  owner: CreatedUser;
  organizationId: number;
  assistantId: number;
  filePath: string;
  close(): Promise<void>;
}

function messagesOf(body: unknown): { role: string; content: unknown }[] {
  return isRecord(body) && Array.isArray(body.messages) ? (body.messages as { role: string; content: unknown }[]) : [];
}

function judgeReply(prompt: string): ScriptedReply {
  const verdict = (name: string, score: number): ScriptedReply => ({
    text: JSON.stringify({ verdict: name, score, reasons: [`judged ${name}`] }),
  });
  if (prompt.includes('[judge:pass]')) return verdict('pass', 0.9);
  if (prompt.includes('[judge:fail]')) return verdict('fail', 0.1);
  if (prompt.includes('[judge:mixed]')) return verdict('mixed', 0.5);
  if (prompt.includes('[judge:slow]')) return { delayMs: JUDGE_TIMEOUT_MILLISECONDS * 6, ...verdict('pass', 1) };
  return { text: 'It seems fine to me.' };
}

/** The fake's answers, per prompt (see the header). */
export function scriptedReply(recorded: RecordedRequest): ScriptedReply {
  const messages = messagesOf(recorded.body);
  const system = typeof messages[0]?.content === 'string' ? messages[0].content : '';
  if (system === JUDGE_INSTRUCTIONS) return judgeReply(lastUserMessageText(recorded.body));
  const question = lastUserMessageText(recorded.body);
  const toolAnswered = messages.some((message) => message.role === 'tool');
  if (question.includes('list please') && !toolAnswered)
    return { toolCalls: [{ id: 'call_list', name: 'list_documents', arguments: '{}' }] };
  const text = system.includes('Be brief') ? BRIEF_ANSWER : LONG_ANSWER;
  if (question.includes('until stopped')) return { text, delayMs: HELD_ANSWER_MILLISECONDS };
  return question.includes('slow') ? { text, delayMs: SLOW_ANSWER_MILLISECONDS } : { text };
}

async function uploadNotes(server: TestServer, token: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob(['Cells divide by mitosis.'], { type: 'text/markdown' }), 'cells.md');
  const response = await fetch(`${server.baseUrl}/api/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (response.status !== 201) throw new Error(`upload failed with ${response.status}`);
  return ((await response.json()) as { file_path: string }).file_path;
}

/** The world's server; over `database` when given (the caller drops it), so other processes can share its store. */
export async function startAssistantTestWorld(
  dialect: Dialect,
  environment: Record<string, string> = {},
  database?: TestDatabase,
): Promise<AssistantTestWorld> {
  const provider = await startFakeOpenAiServer();
  provider.setResponder(scriptedReply);
  const server = await startTestServer(dialect, {
    ...(database !== undefined && { database }),
    environment: {
      OPENAI_BASE_URL: provider.baseUrl,
      OPENAI_API_KEY: 'sk-test',
      TEST_JUDGE_TIMEOUT_MS: String(JUDGE_TIMEOUT_MILLISECONDS),
      TEST_RUN_EVENTS_POLL_MS: '50',
      ...environment,
    },
  });
  const adminToken = await loginAsAdmin(server);
  const organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id as number;
  const judge = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
    token: adminToken,
    body: { small_fast_model: { connector: 'openai', model: 'gpt-4o-mini' } },
  });
  if (judge.status !== 200) throw new Error(`setting the small fast model failed: ${judge.text}`);
  const owner = await createUser(server, adminToken, { email: 'test-owner@merino.test', role: 'creator' });
  const filePath = await uploadNotes(server, owner.token);
  const knowledgeBase = await request(server, 'POST', '/api/knowledge-bases', { token: owner.token, body: { name: 'Biology' } });
  const created = await request(server, 'POST', '/api/assistants', {
    token: owner.token,
    body: {
      name: 'Biology tutor',
      system_prompt: 'You teach biology.',
      prompt_template: 'Notes: {context}\n\nQuestion: {user_input}',
      metadata: {
        assistant_type: 'multi_tool',
        connector: 'openai',
        llm: 'gpt-4o-mini',
        tools: [
          { type: 'single_file_rag', enabled: true, config: { file_path: filePath } },
          { type: 'list_documents', enabled: true, config: { collections: [String(knowledgeBase.body.id)] } },
        ],
      },
    },
  });
  if (created.status !== 201) throw new Error(`creating the assistant failed: ${created.text}`);
  const assistantId = created.body.id as number;
  await request(server, 'PUT', `/api/assistants/${assistantId}/publish`, { token: owner.token, body: { published: true } });
  return {
    server,
    provider,
    adminToken,
    owner,
    organizationId,
    assistantId,
    filePath,
    async close() {
      await server.services.testRuns.idle();
      await server.close();
      await provider.close();
    },
  };
}

/** Waits (by polling the API, never a clock) until the run is no longer running; answers it. */
export async function finishedRun(world: AssistantTestWorld, runId: number, token = world.owner.token): Promise<any> {
  await world.server.services.testRuns.idle();
  const run = await request(world.server, 'GET', `/api/assistants/${world.assistantId}/test-runs/${runId}`, { token });
  if (run.body.status === 'running') throw new Error(`run ${runId} is still running after its jobs ended`);
  return run.body;
}
