// Proves a rubric as the service shows it is what the rubric routes' response schema declares: the hand-written view type (criteria and metadata are open objects in the schema, so it cannot be derived) is assignable to the schema's type, and a real rubric, created and listed over HTTP, validates against the schemas with every required property present.
import type { FromSchema } from 'json-schema-to-ts';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { RubricView } from '../src/rubrics/rubric-service.js';
import { rubricSummaryViewSchema, rubricViewSchema, type RubricSummaryView } from '../src/rubrics/rubric-view-schemas.js';
import { createAjv } from '../src/validation/create-ajv.js';
import { pageSchema } from '../src/validation/shape-fragments.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

const levels = [
  { score: 2, label: 'Clear', description: 'The thesis is clear' },
  { score: 1, label: 'Unclear', description: 'The thesis is missing' },
];
const rubric = {
  title: 'Essay writing',
  metadata: { subject: 'English', gradeLevel: null, tags: ['essays'], house_key: 'kept as sent' },
  criteria: [{ name: 'Thesis', description: 'The main argument', weight: 1, levels }],
  scoringType: 'points',
  maxScore: 2,
};

describe('rubric views and their response schemas', () => {
  let server: TestServer;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    token = await loginAsAdmin(server);
  });

  afterAll(async () => {
    await server.close();
  });

  it('types a rubric so that it fits the schema the route answers with', () => {
    expectTypeOf<RubricView>().toExtend<FromSchema<ReturnType<typeof rubricViewSchema>>>();
    expectTypeOf<RubricSummaryView>().toEqualTypeOf<FromSchema<typeof rubricSummaryViewSchema>>();
  });

  it('answers a created and a listed rubric as the schemas declare them', async () => {
    const ajv = createAjv({ strict: false });
    const created = await request(server, 'POST', '/api/rubrics', { token, body: rubric });
    expect(created.status, created.text).toBe(201);
    const checkRubric = ajv.compile(rubricViewSchema('a rubric'));
    expect(checkRubric(created.body), JSON.stringify(checkRubric.errors)).toBe(true);
    expect(created.body.metadata.house_key).toBe('kept as sent');

    const listed = await request(server, 'GET', '/api/rubrics', { token });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.items).toHaveLength(1);
    const checkPage = ajv.compile(pageSchema('rubrics', rubricSummaryViewSchema));
    expect(checkPage(listed.body), JSON.stringify(checkPage.errors)).toBe(true);
  });
});
