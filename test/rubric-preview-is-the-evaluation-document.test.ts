// Proves POST /api/rubrics/preview over real HTTP on both stores: for a rubric not saved yet it answers the very evaluation document rubric_rag puts in {rubric} once the rubric is saved (markdown and JSON), stores nothing, answers each role as it should (creators and admins of any organization 200, learners 403, anonymous 401), refuses hostile input with a 400 naming the problem, and answers 50 previews sent at once alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RubricDocument } from '../src/rubrics/rubric-document.js';
import { evaluationJson, evaluationMarkdown } from '../src/rubrics/rubric-rendering.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './support/test-server.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';
import { possiblyUnset } from './support/possibly-unset.js';

const VIEW_FIELDS = ['visibility', 'owner', 'organization_id', 'is_mine', 'created_at', 'updated_at'];

function levels(subject: string) {
  return [
    { score: 4, label: 'Exemplary', description: `${subject} is clear | compelling` },
    { score: 3, label: 'Proficient', description: `${subject} is clear` },
    { score: 2, label: 'Developing', description: `${subject} is partly clear` },
    { score: 1, label: 'Beginning', description: `${subject} is missing` },
  ];
}

function rubricBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Lab report',
    description: 'Reports of the first lab',
    metadata: { subject: 'Biology', gradeLevel: '9' },
    criteria: [
      { name: 'Hypothesis', description: 'What is tested', weight: 30, levels: levels('The hypothesis') },
      { name: 'Method', description: 'How it is tested', weight: 30, levels: levels('The method') },
      { name: 'Analysis', description: 'What the data say', weight: 40, levels: levels('The analysis') },
    ],
    scoringType: 'percentage',
    maxScore: 100,
    ...extra,
  };
}

function documentOf(view: Record<string, unknown>): RubricDocument {
  return Object.fromEntries(Object.entries(view).filter(([key]) => !VIEW_FIELDS.includes(key))) as unknown as RubricDocument;
}

function expectError(response: JsonResponse, status: number, code: string, param?: string): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body.error.code).toBe(code);
  if (param !== undefined) expect(response.body.error.param).toBe(param);
  expect(response.text).not.toMatch(/\bat .+\.(ts|js):\d+/);
}

describe.each(TEST_DIALECTS)('the rubric preview on %s', (dialect) => {
  let server: TestServer;
  const tokens = { system: '', adminA: '', creatorA: '', learnerA: '', creatorB: '' };

  const preview = (token: string | undefined, body: unknown, query = '') =>
    request(server, 'POST', `/api/rubrics/preview${query}`, { ...(token !== undefined && { token }), body });

  beforeAll(async () => {
    server = await startTestServer(dialect);
    tokens.system = await loginAsAdmin(server);
    const [adminA, creatorA, learnerA, creatorB] = await peopleInTwoOrganizations(server, tokens.system, [
      { email: 'admin.a@merino.test', role: 'admin', organization: 'A' },
      { email: 'creator.a@merino.test', role: 'creator', organization: 'A' },
      { email: 'learner.a@merino.test', role: 'learner', organization: 'A' },
      { email: 'creator.b@merino.test', role: 'creator', organization: 'B' },
    ]);
    Object.assign(tokens, { adminA, creatorA, learnerA, creatorB });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('answers the markdown document rubric_rag renders for the same rubric once saved, and stores nothing', async () => {
    const shown = await preview(tokens.creatorA, rubricBody());
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.format).toBe('markdown');
    expect(shown.body.document).toContain('## Scoring instructions');

    const listed = await request(server, 'GET', '/api/rubrics', { token: tokens.creatorA });
    expect(listed.body.total).toBe(0);

    const saved = await request(server, 'POST', '/api/rubrics', { token: tokens.creatorA, body: rubricBody() });
    expect(saved.status, saved.text).toBe(201);
    expect(shown.body.document).toBe(evaluationMarkdown(documentOf(saved.body)));
  });

  it('answers the JSON document when format=json, with the rubricId the draft names', async () => {
    const body = rubricBody({ rubricId: 'lab-report-2026' });
    const shown = await preview(tokens.creatorA, body, '?format=json');
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.format).toBe('json');
    const saved = await request(server, 'POST', '/api/rubrics', { token: tokens.creatorA, body });
    const expected = JSON.parse(evaluationJson(documentOf(saved.body)));
    const actual = JSON.parse(shown.body.document);
    // The timestamps are the moment each was rendered; everything else is the same document.
    actual.rubric.metadata = expected.rubric.metadata;
    expect(actual).toEqual(expected);
  });

  it('answers each role: creators and admins of either organization 200, learners 403, anonymous 401', async () => {
    for (const token of [tokens.system, tokens.adminA, tokens.creatorA, tokens.creatorB]) {
      expect((await preview(token, rubricBody())).status).toBe(200);
    }
    expectError(await preview(tokens.learnerA, rubricBody()), 403, 'forbidden');
    expect((await preview(undefined, rubricBody())).status).toBe(401);
  });

  it('refuses hostile input with a 400 naming the problem', async () => {
    const broken = rubricBody();
    (broken.criteria as Array<Record<string, unknown>>)[1]!.weight = -5;
    const refused = await preview(tokens.creatorA, broken);
    expectError(refused, 400, 'invalid_body', 'criteria[1].weight');
    expect(refused.body.error.message).toContain('"criteria[1].weight"');
    expectError(await preview(tokens.creatorA, rubricBody({ colour: 'blue' })), 400, 'invalid_body', 'colour');
    expectError(await preview(tokens.creatorA, rubricBody({ visibility: 'public' })), 400, 'invalid_body', 'visibility');
    expectError(await preview(tokens.creatorA, [rubricBody()]), 400, 'invalid_body');
    expectError(await preview(tokens.creatorA, {}), 400, 'invalid_body', 'title');
    expectError(await preview(tokens.creatorA, rubricBody({ title: 'x'.repeat(5_000) })), 400, 'invalid_body', 'title');
    expect((await preview(tokens.creatorA, rubricBody(), '?format=xml')).status).toBe(400);
  });

  it('answers 50 previews sent at once, each the same document', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => preview(tokens.creatorA, rubricBody())));
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 50 }, () => 200));
    expect(new Set(answers.map((answer) => answer.body.document)).size).toBe(1);
  });
});
