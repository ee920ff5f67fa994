/**
 * Proves the completion wire format as DESIGN §4 draws it, with real context tools: status chunks
 * for each tool step before the answer, the answer, the finish chunk, the sources chunk, the usage
 * chunk, [DONE]; debug-bypass showing every placeholder filled; status lines as content on
 * request; a failing tool leaving its placeholder empty; verbose traces that carry no secret or
 * learner text; one usage row per request; and a LAMB export that answers unchanged once imported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const FILE_CANARY = 'FILE-CANARY-7731';
const LEARNER_CANARY = 'LEARNER-CANARY-4410';
const PROVIDER_KEY = 'sk-trace-canary-key-998877';
const WEEK_ONE = `# Week 1\nCells are the unit of life. ${FILE_CANARY}-A`;
const WEEK_TWO = `# Week 2\nMitosis makes two cells. ${FILE_CANARY}-B`;

interface StreamEvent {
  raw: string;
  json?: any;
}

async function uploadFile(
  server: TestServer,
  token: string,
  fileName: string,
  content: string,
): Promise<{ id: number; file_path: string }> {
  const form = new FormData();
  form.append('file', new Blob([content], { type: 'text/markdown' }), fileName);
  const response = await fetch(`${server.baseUrl}/api/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: number; file_path: string };
}

async function streamEvents(
  server: TestServer,
  token: string,
  body: Record<string, unknown>,
): Promise<{ events: StreamEvent[]; headers: Headers }> {
  const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  const events = text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice(6))
    .map((raw) => (raw === '[DONE]' ? { raw } : { raw, json: JSON.parse(raw) }));
  return { events, headers: response.headers };
}

/** The kind of each chunk, in order: status, text, finish, sources, usage, done. */
function kindOf(event: StreamEvent): string {
  if (event.raw === '[DONE]') return 'done';
  const chunk = event.json;
  if (chunk.status) return 'status';
  if (chunk.sources) return 'sources';
  if (chunk.usage) return 'usage';
  if (chunk.choices[0]?.finish_reason) return 'finish';
  return 'text';
}

function collapse(kinds: string[]): string[] {
  return kinds.filter((kind, index) => kind !== kinds[index - 1]);
}

describe.each(TEST_DIALECTS)('the completion wire format on %s', (dialect) => {
  let server: TestServer;
  let token: string;
  let model: string;
  let files: Array<{ id: number; file_path: string }>;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: { OPENAI_API_KEY: PROVIDER_KEY } });
    token = await loginAsAdmin(server);
    files = [await uploadFile(server, token, 'week1.md', WEEK_ONE), await uploadFile(server, token, 'week2.md', WEEK_TWO)];
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: 'Course notes',
        system_prompt: 'Answer from the notes.',
        prompt_template: 'Notes:{file}Question:{user_input}Keep {braces} as written.',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'debug-bypass',
          verbose: true,
          tools: [
            { type: 'single_file_rag', enabled: true, config: { file_path: files[0]!.file_path } },
            { type: 'single_file_rag', enabled: true, config: { file_path: files[1]!.file_path } },
            { type: 'no_rag', enabled: true, config: {} },
          ],
        },
      },
    });
    model = `lamb_assistant.${created.body.id}`;
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('streams statuses, then the sources of the context tools, then the answer, finish, usage and [DONE]', async () => {
    const { events } = await streamEvents(server, token, {
      model,
      messages: [{ role: 'user', content: `What divides? ${LEARNER_CANARY}` }],
    });
    expect(collapse(events.map(kindOf))).toEqual(['status', 'sources', 'text', 'finish', 'usage', 'done']);
    const statuses = events.filter((event) => kindOf(event) === 'status').map((event) => event.json.status);
    expect(statuses.filter((status) => status.state === 'running').map((status) => status.message)).toEqual([
      `reading file ${files[0]!.file_path}`,
      `reading file ${files[1]!.file_path}`,
      'merging tool outputs',
    ]);
    expect(statuses.at(-1)).toMatchObject({ tool: 'orchestrator', state: 'done', message: 'merging tool outputs' });
    for (const running of statuses.filter((status) => status.state === 'running')) {
      expect(statuses.find((status) => status.id === running.id && status.state === 'done')).toBeDefined();
    }
    for (const status of statuses) expect(JSON.stringify(status)).not.toContain(FILE_CANARY);
    const sources = events.find((event) => kindOf(event) === 'sources')!.json.sources;
    expect(sources.map((source: { title: string }) => source.title)).toEqual(['week1.md', 'week2.md']);
  });

  it('shows through debug-bypass the prompt with every placeholder filled in configured order', async () => {
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model, messages: [{ role: 'user', content: 'What is {file}?' }] },
    });
    const shown = JSON.parse(response.body.choices[0].message.content);
    expect(shown.messages).toEqual([
      { role: 'system', content: 'Answer from the notes.' },
      { role: 'user', content: `Notes:\n\n${WEEK_ONE}\n\n${WEEK_TWO}\n\nQuestion:\n\nWhat is {file}?\n\nKeep {braces} as written.` },
    ]);
    expect(response.body.sources).toHaveLength(2);
  });

  it('writes status lines into the content when stream_options.status_as_content is set', async () => {
    const { events } = await streamEvents(server, token, {
      model,
      stream_options: { status_as_content: true },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(events.some((event) => kindOf(event) === 'status')).toBe(false);
    const content = events
      .filter((event) => kindOf(event) === 'text')
      .map((event) => event.json.choices[0].delta.content ?? '')
      .join('');
    expect(
      content.startsWith(`_reading file ${files[0]!.file_path}…_\n\n_reading file ${files[1]!.file_path}…_\n\n_merging tool outputs…_\n\n`),
    ).toBe(true);
  });

  it('stores a trace with markers in place of contents and learner text, readable by the owner only', async () => {
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model, messages: [{ role: 'user', content: `Explain ${LEARNER_CANARY}` }] },
    });
    const traceId = response.body.trace_id;
    expect(response.headers.get('x-trace-id')).toBe(traceId);
    const trace = await request(server, 'GET', `/api/traces/${traceId}`, { token });
    expect(trace.status).toBe(200);
    const text = JSON.stringify(trace.body);
    for (const canary of [FILE_CANARY, LEARNER_CANARY, PROVIDER_KEY]) expect(text).not.toContain(canary);
    expect(trace.body.steps.map((step: { input: unknown }) => step.input)).toEqual([
      { file_path: files[0]!.file_path, max_chars: 50_000 },
      { file_path: files[1]!.file_path, max_chars: 50_000 },
    ]);
    expect(trace.body.steps[0].outputCharacters).toBe(WEEK_ONE.length);
    const combined = WEEK_ONE.length + 2 + WEEK_TWO.length;
    expect(trace.body.prompt.at(-1).content).toContain(`[file: ${combined.toLocaleString('en-US')} chars]`);
    expect(trace.body.prompt.at(-1).content).toContain(`[user: ${`Explain ${LEARNER_CANARY}`.length} chars]`);
    const stranger = await createUser(server, token, { email: `stranger-${dialect}@merino.test`, role: 'creator' });
    expect((await request(server, 'GET', `/api/traces/${traceId}`, { token: stranger.token })).status).toBe(404);
    for (const line of server.logLines)
      for (const canary of [FILE_CANARY, LEARNER_CANARY, PROVIDER_KEY]) expect(line).not.toContain(canary);
  });

  it('records one usage row per request, with the tokens it reported', async () => {
    const before = await server.store.db.selectFrom('usage_logs').selectAll().execute();
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model, messages: [{ role: 'user', content: 'count me' }] },
    });
    await streamEvents(server, token, { model, messages: [{ role: 'user', content: 'and me' }] });
    const after = await server.store.db.selectFrom('usage_logs').selectAll().orderBy('id').execute();
    expect(after).toHaveLength(before.length + 2);
    expect(after.at(-2)).toMatchObject({
      connector: 'bypass',
      model: 'debug-bypass',
      outcome: 'completed',
      total_tokens: response.body.usage.total_tokens,
    });
    expect(response.body.usage.total_tokens).toBeGreaterThan(0);
  });

  it('leaves the placeholder of a failing tool empty and answers anyway', async () => {
    const doomed = await uploadFile(server, token, 'doomed.md', 'soon gone');
    const created = await request(server, 'POST', '/api/assistants', {
      token,
      body: {
        name: 'Fragile',
        prompt_template: '[{file}] {user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'simple-bypass',
          tools: [{ type: 'single_file_rag', config: { file_path: doomed.file_path } }],
        },
      },
    });
    expect((await request(server, 'DELETE', `/api/files/${doomed.id}?force=true`, { token })).status).toBe(204);
    const { events } = await streamEvents(server, token, {
      model: `lamb_assistant.${created.body.id}`,
      messages: [{ role: 'user', content: 'still there?' }],
    });
    const failed = events
      .filter((event) => kindOf(event) === 'status')
      .map((event) => event.json.status)
      .find((status) => status.state === 'error');
    expect(failed.message).toContain(`reading file ${doomed.file_path}`);
    const answer = events
      .filter((event) => kindOf(event) === 'text')
      .map((event) => event.json.choices[0].delta.content)
      .join('');
    expect(answer).toBe('[] \n\nstill there?\n\n');
  });

  it('answers an imported LAMB export of a classic assistant exactly as its fields say', async () => {
    const lambExport = {
      id: 41,
      name: '5_Physics_Helper',
      description: 'Helps with physics',
      owner: 'teacher@lamb.example',
      api_callback: JSON.stringify({
        prompt_processor: 'simple_augment',
        connector: 'bypass',
        llm: 'debug-bypass',
        rag_processor: 'no_rag',
      }),
      metadata: JSON.stringify({ prompt_processor: 'simple_augment', connector: 'bypass', llm: 'debug-bypass', rag_processor: 'no_rag' }),
      system_prompt: 'You explain physics simply.',
      prompt_template: 'Context: {context}\nStudent asks: {user_input}',
      RAG_endpoint: '',
      RAG_Top_k: 3,
      RAG_collections: '',
      pre_retrieval_endpoint: '',
      post_retrieval_endpoint: '',
      published: true,
      published_at: 1_700_000_000,
      group_id: 'assistant_41',
      group_name: 'assistant_41',
      oauth_consumer_name: '5_Physics_Helper',
      created_at: 1_700_000_000,
      updated_at: 1_700_000_000,
    };
    const imported = await request(server, 'POST', '/api/assistants/import', { token, body: lambExport });
    expect(imported.status).toBe(201);
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model: `lamb_assistant.${imported.body.id}`, messages: [{ role: 'user', content: 'Why do things fall?' }] },
    });
    expect(JSON.parse(response.body.choices[0].message.content).messages).toEqual([
      { role: 'system', content: 'You explain physics simply.' },
      { role: 'user', content: 'Context: \nStudent asks: \n\nWhy do things fall?\n\n' },
    ]);
  });
});
