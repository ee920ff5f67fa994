// Proves rubric_rag end to end over real HTTP on both stores, through the debug-bypass connector: a multi-tool assistant gets the evaluation document in {rubric} (markdown or JSON), a classic one with rag_processor rubric_rag and rubric_id/rubric_format in its metadata gets it in {context} (an integer rubric_id too), the status reads "generating rubric <id>", the rubric is read with the assistant owner's permissions (a learner chatting reads the owner's private rubric; an organization-shared rubric of a colleague is usable), and a rubric the owner may not read (a colleague's private one, another organization's, a deleted one) gives an error status and an empty placeholder, with no rubric text in the trace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RubricDocument } from '../src/rubrics/rubric-document.js';
import { evaluationJson, evaluationMarkdown } from '../src/rubrics/rubric-rendering.js';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const RUBRIC_CANARY = 'RUBRIC-CANARY-5521';
const LEARNER_WORK = 'My essay argues that cells divide.';
const VIEW_FIELDS = ['visibility', 'owner', 'organization_id', 'is_mine', 'created_at', 'updated_at'];

function rubricBody(rubricId: string, title: string, visibility: 'private' | 'organization' = 'private'): Record<string, unknown> {
  const levels = (subject: string) => [
    { score: 4, label: 'Exemplary', description: `${subject} is clear and compelling ${RUBRIC_CANARY}` },
    { score: 2, label: 'Developing', description: `${subject} is partly clear` },
    { score: 0, label: 'Missing', description: `${subject} is missing` },
  ];
  return {
    rubricId,
    title,
    description: 'Argumentative essays',
    metadata: { subject: 'Biology' },
    criteria: [
      { name: 'Thesis', description: 'The main argument', weight: 3, levels: levels('The thesis') },
      { name: 'Evidence', description: 'Support for it', weight: 1, levels: levels('The evidence') },
    ],
    scoringType: 'points',
    maxScore: 20,
    visibility,
  };
}

interface Status {
  id: string;
  tool: string;
  state: string;
  message: string;
}

describe.each(TEST_DIALECTS)('rubric_rag on %s', (dialect) => {
  let server: TestServer;
  let ownerToken: string;
  let learnerToken: string;
  const documents: Record<string, RubricDocument> = {};

  async function createRubric(token: string, body: Record<string, unknown>): Promise<RubricDocument> {
    const response = await request(server, 'POST', '/api/rubrics', { token, body });
    expect(response.status, response.text).toBe(201);
    return Object.fromEntries(Object.entries(response.body).filter(([key]) => !VIEW_FIELDS.includes(key))) as unknown as RubricDocument;
  }

  async function createAssistant(name: string, promptTemplate: string, metadata: Record<string, unknown>): Promise<string> {
    const response = await request(server, 'POST', '/api/assistants', {
      token: ownerToken,
      body: {
        name,
        system_prompt: 'You grade essays.',
        prompt_template: promptTemplate,
        metadata: { connector: 'bypass', llm: 'debug-bypass', ...metadata },
      },
    });
    expect(response.status, response.text).toBe(201);
    return `lamb_assistant.${response.body.id}`;
  }

  const multiTool = (name: string, tools: unknown[]) =>
    createAssistant(name, 'Rubric:{rubric}Work:{user_input}', { assistant_type: 'multi_tool', tools });
  const classic = (name: string, metadata: Record<string, unknown>) =>
    createAssistant(name, 'Context: {context}\nStudent work: {user_input}', { rag_processor: 'rubric_rag', ...metadata });

  /** What debug-bypass answers: the messages the model would have received, and the run's sources. */
  async function shownPrompt(
    model: string,
    token = ownerToken,
  ): Promise<{ messages: Array<{ role: string; content: string }>; sources: Array<Record<string, unknown>>; traceId?: string }> {
    const response = await request(server, 'POST', '/v1/chat/completions', {
      token,
      body: { model, messages: [{ role: 'user', content: LEARNER_WORK }] },
    });
    expect(response.status, response.text).toBe(200);
    return {
      messages: JSON.parse(response.body.choices[0].message.content).messages,
      sources: response.body.sources ?? [],
      traceId: response.body.trace_id,
    };
  }

  async function statuses(model: string): Promise<Status[]> {
    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: LEARNER_WORK }] }),
    });
    expect(response.status).toBe(200);
    const chunks = (await response.text())
      .split('\n\n')
      .filter((block) => block.startsWith('data: {'))
      .map((block) => JSON.parse(block.slice(6)));
    return chunks.filter((chunk) => chunk.status).map((chunk) => chunk.status as Status);
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const adminToken = await loginAsAdmin(server);
    const organizationAId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id as number;
    const organizationBId = await insertOrganization(server.store.db, 'organization-b', 'Organization B');
    const [owner, colleague, learner, outsider] = await Promise.all([
      createUser(server, adminToken, { email: 'owner@merino.test', role: 'creator', organization_id: organizationAId }),
      createUser(server, adminToken, { email: 'colleague@merino.test', role: 'creator', organization_id: organizationAId }),
      createUser(server, adminToken, { email: 'learner@merino.test', role: 'learner', organization_id: organizationAId }),
      createUser(server, adminToken, { email: 'outsider@merino.test', role: 'admin', organization_id: organizationBId }),
    ]);
    ownerToken = owner.token;
    learnerToken = learner.token;
    documents.own = await createRubric(ownerToken, rubricBody('essay-rubric-2025', 'Essay writing'));
    documents.numeric = await createRubric(ownerToken, rubricBody('12345678901', 'Numbered rubric'));
    documents.colleagueShared = await createRubric(
      colleague.token,
      rubricBody('colleague-shared-01', 'Shared by a colleague', 'organization'),
    );
    documents.colleaguePrivate = await createRubric(colleague.token, rubricBody('colleague-private-01', 'Private to a colleague'));
    documents.elsewhere = await createRubric(
      outsider.token,
      rubricBody('elsewhere-shared-01', 'Shared in another organization', 'organization'),
    );
    documents.deleted = await createRubric(ownerToken, rubricBody('deleted-rubric-01', 'Deleted rubric'));
    expect((await request(server, 'DELETE', '/api/rubrics/deleted-rubric-01', { token: ownerToken })).status).toBe(204);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('fills {rubric} of a multi-tool assistant with the markdown evaluation document, and cites the rubric', async () => {
    const model = await multiTool('Multi markdown', [{ type: 'rubric_rag', config: { rubric_id: 'essay-rubric-2025' } }]);
    const shown = await shownPrompt(model);
    expect(shown.messages).toEqual([
      { role: 'system', content: 'You grade essays.' },
      { role: 'user', content: `Rubric:\n\n${evaluationMarkdown(documents.own!)}\n\nWork:\n\n${LEARNER_WORK}\n\n` },
    ]);
    const document = shown.messages[1]!.content;
    for (const part of [
      '# Essay writing',
      '## Scoring instructions',
      '÷ 4 × 20',
      '## Criteria overview',
      '| 1 | Thesis | 3 | 75% | 0–4 |',
      '## Performance levels',
      '## Expected output format',
    ]) {
      expect(document).toContain(part);
    }
    // The rubric is an instruction the model follows, not where the answer came from: it is never a source.
    expect(shown.sources).toEqual([]);
  });

  it('fills {rubric} with the JSON evaluation document when the config asks for json (by the alias rubric)', async () => {
    const model = await multiTool('Multi json', [{ type: 'rubric', config: { rubric_id: 'essay-rubric-2025', format: 'json' } }]);
    const content = (await shownPrompt(model)).messages[1]!.content;
    expect(content).toBe(`Rubric:\n\n${evaluationJson(documents.own!)}\n\nWork:\n\n${LEARNER_WORK}\n\n`);
    const parsed = JSON.parse(evaluationJson(documents.own!));
    expect(parsed.rubric).toEqual(documents.own);
    expect(parsed.evaluation_instructions.weighted_formula).toContain('÷ 4 × 20');
  });

  it('fills {context} of a classic assistant from metadata.rubric_id and rubric_format, followed by its source', async () => {
    const model = await classic('Classic markdown', { rubric_id: 'essay-rubric-2025', rubric_format: 'markdown' });
    const sourceList = '\n\n## Available Sources\n\n1. [Essay writing](rubric:essay-rubric-2025)\n';
    expect((await shownPrompt(model)).messages[1]!.content).toBe(
      `Context: \n\n${evaluationMarkdown(documents.own!)}${sourceList}\n\n\nStudent work: \n\n${LEARNER_WORK}\n\n`,
    );
    const json = await classic('Classic json', { rubric_id: 'essay-rubric-2025', rubric_format: 'json' });
    expect((await shownPrompt(json)).messages[1]!.content).toContain(evaluationJson(documents.own!));
  });

  it('accepts an integer rubric_id in classic metadata, as LAMB stored it, by its string form', async () => {
    const model = await classic('Classic integer id', { rubric_id: 12345678901 });
    expect((await shownPrompt(model)).messages[1]!.content).toContain(evaluationMarkdown(documents.numeric!));
  });

  it('reports "generating rubric <id>" running, then done', async () => {
    const model = await multiTool('Multi status', [{ type: 'rubric_rag', config: { rubric_id: 'essay-rubric-2025' } }]);
    const seen = await statuses(model);
    expect(seen.map((status) => [status.tool, status.state, status.message])).toEqual([
      ['rubric_rag', 'running', 'generating rubric essay-rubric-2025'],
      ['rubric_rag', 'done', 'generating rubric essay-rubric-2025'],
    ]);
    for (const status of seen) expect(JSON.stringify(status)).not.toContain(RUBRIC_CANARY);
  });

  it("reads with the owner's permissions: a learner chatting gets the owner's private rubric, and a colleague's shared rubric is usable", async () => {
    const model = await multiTool('Published grader', [{ type: 'rubric_rag', config: { rubric_id: 'essay-rubric-2025' } }]);
    const id = model.slice('lamb_assistant.'.length);
    expect((await request(server, 'PUT', `/api/assistants/${id}/publish`, { token: ownerToken, body: { published: true } })).status).toBe(
      200,
    );
    expect((await request(server, 'GET', '/api/rubrics/essay-rubric-2025', { token: learnerToken })).status).toBe(404);
    expect((await shownPrompt(model, learnerToken)).messages[1]!.content).toContain(evaluationMarkdown(documents.own!));
    const shared = await multiTool('Colleague rubric', [{ type: 'rubric_rag', config: { rubric_id: 'colleague-shared-01' } }]);
    expect((await shownPrompt(shared)).messages[1]!.content).toContain(evaluationMarkdown(documents.colleagueShared!));
  });

  it.each([
    ["a colleague's private rubric", 'colleague-private-01'],
    ["another organization's shared rubric", 'elsewhere-shared-01'],
    ['a deleted rubric', 'deleted-rubric-01'],
    ['a rubric that never existed', 'no-such-rubric-01'],
  ])('leaves {rubric} empty and reports an error status for %s', async (_name, rubricId) => {
    const model = await multiTool(`Unreadable ${rubricId}`, [{ type: 'rubric_rag', config: { rubric_id: rubricId } }]);
    const seen = await statuses(model);
    expect(seen.map((status) => [status.state, status.message])).toEqual([
      ['running', `generating rubric ${rubricId}`],
      ['error', `generating rubric ${rubricId}: Rubric not found.`],
    ]);
    const shown = await shownPrompt(model);
    expect(shown.messages[1]!.content).toBe(`Rubric:Work:\n\n${LEARNER_WORK}\n\n`);
    expect(shown.sources).toEqual([]);
  });

  it('leaves {context} of a classic assistant empty when the owner may not read the rubric', async () => {
    const model = await classic('Classic unreadable', { rubric_id: 'colleague-private-01' });
    expect((await shownPrompt(model)).messages[1]!.content).toBe(`Context: \nStudent work: \n\n${LEARNER_WORK}\n\n`);
  });

  it('records the rubric id and format in a verbose trace, but never the rubric text', async () => {
    const created = await request(server, 'POST', '/api/assistants', {
      token: ownerToken,
      body: {
        name: 'Verbose grader',
        prompt_template: '{rubric}{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'debug-bypass',
          verbose: true,
          tools: [{ type: 'rubric_rag', config: { rubric_id: 'essay-rubric-2025' } }],
        },
      },
    });
    const { traceId } = await shownPrompt(`lamb_assistant.${created.body.id}`);
    const trace = await request(server, 'GET', `/api/traces/${traceId}`, { token: ownerToken });
    expect(trace.status).toBe(200);
    expect(trace.body.steps).toEqual([
      expect.objectContaining({
        tool: 'rubric_rag',
        placeholder: 'rubric',
        input: { rubric_id: 'essay-rubric-2025', format: 'markdown' },
        outputCharacters: evaluationMarkdown(documents.own!).length,
      }),
    ]);
    expect(JSON.stringify(trace.body)).not.toContain(RUBRIC_CANARY);
  });
});
