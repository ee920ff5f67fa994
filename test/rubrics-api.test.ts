// Proves the rubrics API over real HTTP on both stores: LAMB rubric JSON is created with generated rubricId and criterion and level ids, refused with errors naming the path, listed as mine or my organization's with search and paging, changed and checked as a whole, soft-deleted without giving its id back, shown to the organization only when its visibility says so (404 for everyone else, 403 for members who may only read), and exported and imported as JSON and markdown without losing anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { listAuditEntries } from '../src/store/audit-log-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type JsonResponse, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const VIEW_FIELDS = ['visibility', 'owner', 'organization_id', 'is_mine', 'created_at', 'updated_at'];

function levels(subject: string) {
  return [
    { score: 4, label: 'Exemplary', description: `${subject} is clear and compelling` },
    { score: 3, label: 'Proficient', description: `${subject} is clear` },
    { score: 2, label: 'Developing', description: `${subject} is partly clear` },
    { score: 1, label: 'Beginning', description: `${subject} is missing` },
  ];
}

function rubricBody(title = 'Essay writing', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title,
    description: 'Argumentative essays',
    metadata: { subject: 'English', gradeLevel: '10' },
    criteria: [
      { name: 'Thesis', description: 'The main argument', weight: 60, levels: levels('The thesis') },
      { name: 'Evidence', description: 'Support for it', weight: 40, levels: levels('The evidence') },
    ],
    scoringType: 'points',
    maxScore: 10,
    ...extra,
  };
}

/** The LAMB rubric JSON inside a view: the view without the fields Merino adds. */
function documentOf(view: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(view).filter(([key]) => !VIEW_FIELDS.includes(key)));
}

function withoutDates(markdown: string): string {
  return markdown
    .split('\n')
    .filter((line) => !line.startsWith('*Created') && !line.startsWith('*Last modified'))
    .join('\n');
}

function expectError(response: JsonResponse, status: number, code: string, param?: string | null): void {
  expect(response.status, response.text).toBe(status);
  expect(response.body.error.code).toBe(code);
  if (param !== undefined) expect(response.body.error.param).toBe(param);
}

describe.each(TEST_DIALECTS)('the rubrics API on %s', (dialect) => {
  let server: TestServer;
  const tokens = { system: '', adminA: '', owner: '', creatorA: '', learnerA: '', adminB: '' };
  let organizationAId: number;

  const call = (token: string, method: string, path: string, body?: unknown) =>
    request(server, method, path, { token, ...(body !== undefined && { body }) });

  async function createRubric(token: string, body: Record<string, unknown> = rubricBody()): Promise<Record<string, any>> {
    const response = await call(token, 'POST', '/api/rubrics', body);
    expect(response.status, response.text).toBe(201);
    return response.body;
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    tokens.system = await loginAsAdmin(server);
    organizationAId = (await request(server, 'GET', '/api/me', { token: tokens.system })).body.organization_id;
    const organizationBId = await insertOrganization(server.store.db, 'organization-b', 'Organization B');
    const [adminA, owner, creatorA, learnerA, adminB] = await Promise.all([
      createUser(server, tokens.system, { email: 'admin.a@merino.test', role: 'admin', organization_id: organizationAId }),
      createUser(server, tokens.system, { email: 'owner.a@merino.test', role: 'creator', organization_id: organizationAId }),
      createUser(server, tokens.system, { email: 'creator.a@merino.test', role: 'creator', organization_id: organizationAId }),
      createUser(server, tokens.system, { email: 'learner.a@merino.test', role: 'learner', organization_id: organizationAId }),
      createUser(server, tokens.system, { email: 'admin.b@merino.test', role: 'admin', organization_id: organizationBId }),
    ]);
    Object.assign(tokens, {
      adminA: adminA.token,
      owner: owner.token,
      creatorA: creatorA.token,
      learnerA: learnerA.token,
      adminB: adminB.token,
    });
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  describe('creating', () => {
    it('answers 201 with the rubricId, criterion ids and level ids it generated, private by default', async () => {
      const created = await createRubric(tokens.owner);
      expect(created.rubricId).toMatch(UUID_PATTERN);
      expect(created.criteria.map((criterion: { id: string }) => criterion.id)).toEqual(['criterion-1', 'criterion-2']);
      expect(created.criteria[1].levels.map((level: { id: string }) => level.id)).toEqual([
        'criterion-2-level-1',
        'criterion-2-level-2',
        'criterion-2-level-3',
        'criterion-2-level-4',
      ]);
      expect(created).toMatchObject({
        title: 'Essay writing',
        scoringType: 'points',
        maxScore: 10,
        visibility: 'private',
        owner: 'owner.a@merino.test',
        organization_id: organizationAId,
        is_mine: true,
      });
      expect(created.metadata).toEqual({
        subject: 'English',
        gradeLevel: '10',
        createdAt: created.created_at,
        modifiedAt: created.created_at,
      });
      const fetched = await call(tokens.owner, 'GET', `/api/rubrics/${created.rubricId}`);
      expect(fetched.body).toEqual(created);
      const audit = await listAuditEntries(server.store.db, { action: 'rubric.create', targetId: created.rubricId });
      expect(audit).toHaveLength(1);
    });

    it('keeps a rubricId the client chose, and refuses one already taken with 409', async () => {
      const created = await createRubric(
        tokens.owner,
        rubricBody('Lab report', { rubricId: 'lab-report-2025', visibility: 'organization' }),
      );
      expect(created).toMatchObject({ rubricId: 'lab-report-2025', visibility: 'organization' });
      expectError(
        await call(tokens.creatorA, 'POST', '/api/rubrics', rubricBody('Copy', { rubricId: 'lab-report-2025' })),
        409,
        'rubric_id_taken',
        'rubricId',
      );
    });

    it('refuses a rubric that breaks LAMB rules with 400 naming each path', async () => {
      const body = rubricBody();
      const criteria = body.criteria as Array<Record<string, any>>;
      criteria[0]!.levels = [criteria[0]!.levels[0]];
      criteria[1]!.levels[2].description = '';
      const response = await call(tokens.owner, 'POST', '/api/rubrics', { ...body, maxScore: 0 });
      expectError(response, 400, 'invalid_body', 'criteria[0].levels');
      expect(response.body.error.message).toBe('"criteria[0].levels" must hold at least 2 performance levels (it holds 1).');
      expect(response.body.error.details.errors.map((problem: { path: string }) => problem.path)).toEqual([
        'criteria[0].levels',
        'criteria[1].levels[2].description',
        'maxScore',
      ]);
    });

    it('refuses unknown fields, a wrong visibility and bodies that are not objects', async () => {
      expectError(await call(tokens.owner, 'POST', '/api/rubrics', rubricBody('x', { colour: 'blue' })), 400, 'invalid_body', 'colour');
      expectError(
        await call(tokens.owner, 'POST', '/api/rubrics', rubricBody('x', { visibility: 'public' })),
        400,
        'invalid_body',
        'visibility',
      );
      expectError(await call(tokens.owner, 'POST', '/api/rubrics', [rubricBody()]), 400, 'invalid_body');
      expectError(await call(tokens.owner, 'POST', '/api/rubrics', {}), 400, 'invalid_body', 'title');
    });

    it('refuses learners with 403', async () => {
      expectError(await call(tokens.learnerA, 'POST', '/api/rubrics', rubricBody()), 403, 'forbidden');
      expectError(await call(tokens.learnerA, 'POST', '/api/rubrics/import', rubricBody()), 403, 'forbidden');
    });
  });

  describe('visibility and permissions', () => {
    let privateId: string;
    let sharedId: string;

    beforeAll(async () => {
      privateId = (await createRubric(tokens.owner, rubricBody('Private matrix rubric'))).rubricId;
      sharedId = (await createRubric(tokens.owner, rubricBody('Shared matrix rubric', { visibility: 'organization' }))).rubricId;
    });

    it.each([
      ['the owner', 'owner', 200, 200],
      ['the organization admin', 'adminA', 200, 200],
      ['the system admin', 'system', 200, 200],
      ['another creator of the organization', 'creatorA', 404, 200],
      ['a learner of the organization', 'learnerA', 404, 200],
      ['the admin of another organization', 'adminB', 404, 404],
    ] as const)('lets %s read the private rubric (%i) and the shared one (%i)', async (_name, caller, privateStatus, sharedStatus) => {
      expect((await call(tokens[caller], 'GET', `/api/rubrics/${privateId}`)).status).toBe(privateStatus);
      expect((await call(tokens[caller], 'GET', `/api/rubrics/${privateId}/export`)).status).toBe(privateStatus);
      expect((await call(tokens[caller], 'GET', `/api/rubrics/${sharedId}`)).status).toBe(sharedStatus);
      expect((await call(tokens[caller], 'GET', `/api/rubrics/${sharedId}/export?format=markdown`)).status).toBe(sharedStatus);
    });

    it('lets members read a shared rubric but not change or delete it (403), and hides it from other organizations (404)', async () => {
      expectError(await call(tokens.creatorA, 'PATCH', `/api/rubrics/${sharedId}`, { title: 'Mine now' }), 403, 'forbidden');
      expectError(await call(tokens.creatorA, 'DELETE', `/api/rubrics/${sharedId}`), 403, 'forbidden');
      expectError(await call(tokens.creatorA, 'PATCH', `/api/rubrics/${privateId}`, { title: 'Mine now' }), 404, 'not_found');
      expectError(await call(tokens.adminB, 'PATCH', `/api/rubrics/${sharedId}`, { title: 'Mine now' }), 404, 'not_found');
      expectError(await call(tokens.adminB, 'DELETE', `/api/rubrics/${sharedId}`), 404, 'not_found');
      expect((await call(tokens.owner, 'GET', `/api/rubrics/${sharedId}`)).body.title).toBe('Shared matrix rubric');
    });

    it('lets the organization admin and the system admin change a rubric they do not own', async () => {
      expect((await call(tokens.adminA, 'PATCH', `/api/rubrics/${privateId}`, { description: 'Checked by the admin' })).status).toBe(200);
      const changed = await call(tokens.system, 'PATCH', `/api/rubrics/${privateId}`, { maxScore: 20 });
      expect(changed.status, changed.text).toBe(200);
      expect(changed.body).toMatchObject({
        description: 'Checked by the admin',
        maxScore: 20,
        owner: 'owner.a@merino.test',
        is_mine: false,
      });
    });

    it('answers 404 for an unknown rubricId and 400 for one that cannot be an id', async () => {
      expectError(await call(tokens.owner, 'GET', '/api/rubrics/no-such-rubric-id'), 404, 'not_found');
      expectError(await call(tokens.owner, 'GET', '/api/rubrics/bad%20id'), 400, 'invalid_parameter', 'rubricId');
    });
  });

  describe('listing', () => {
    let ids: Record<string, string>;

    beforeAll(async () => {
      ids = {
        ownPrivate: (await createRubric(tokens.creatorA, rubricBody('Évaluation orale privée'))).rubricId,
        ownShared: (await createRubric(tokens.creatorA, rubricBody('Évaluation orale partagée', { visibility: 'organization' }))).rubricId,
        ownerPrivate: (await createRubric(tokens.owner, rubricBody('Listing private'))).rubricId,
        ownerShared: (await createRubric(tokens.owner, rubricBody('Listing shared', { visibility: 'organization' }))).rubricId,
        otherOrganization: (await createRubric(tokens.adminB, rubricBody('Listing elsewhere', { visibility: 'organization' }))).rubricId,
      };
    });

    async function listed(token: string, query: string): Promise<{ ids: string[]; total: number; items: Array<Record<string, unknown>> }> {
      const response = await call(token, 'GET', `/api/rubrics?${query}`);
      expect(response.status, response.text).toBe(200);
      return {
        ids: response.body.items.map((item: { rubricId: string }) => item.rubricId),
        total: response.body.total,
        items: response.body.items,
      };
    }

    it('lists only my rubrics by default, newest first, as summaries', async () => {
      const mine = await listed(tokens.creatorA, 'limit=200');
      expect(mine.ids).toEqual([ids.ownShared, ids.ownPrivate]);
      expect(mine.items[0]).toEqual({
        rubricId: ids.ownShared,
        title: 'Évaluation orale partagée',
        description: 'Argumentative essays',
        subject: 'English',
        gradeLevel: '10',
        scoringType: 'points',
        maxScore: 10,
        criteria_count: 2,
        visibility: 'organization',
        owner: 'creator.a@merino.test',
        organization_id: organizationAId,
        is_mine: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
    });

    it("lists my organization's rubrics I may read: shared ones and my own for members, all of them for admins", async () => {
      const member = await listed(tokens.creatorA, 'scope=organization&limit=200');
      expect(member.ids).toEqual(expect.arrayContaining([ids.ownPrivate, ids.ownShared, ids.ownerShared]));
      expect(member.ids).not.toContain(ids.ownerPrivate);
      expect(member.ids).not.toContain(ids.otherOrganization);
      const admin = await listed(tokens.adminA, 'scope=organization&limit=200');
      expect(admin.ids).toEqual(expect.arrayContaining([ids.ownPrivate, ids.ownShared, ids.ownerShared, ids.ownerPrivate]));
      expect(admin.ids).not.toContain(ids.otherOrganization);
      const learner = await listed(tokens.learnerA, 'scope=organization&limit=200');
      expect(learner.ids).toContain(ids.ownerShared);
      expect(learner.ids).not.toContain(ids.ownPrivate);
      expect((await listed(tokens.adminB, 'scope=organization&limit=200')).ids).toEqual([ids.otherOrganization]);
    });

    it('searches title and description, folding case beyond ASCII, and pages with a total', async () => {
      expect((await listed(tokens.creatorA, 'q=ÉVALUATION')).ids).toEqual([ids.ownShared, ids.ownPrivate]);
      const page = await listed(tokens.creatorA, 'scope=organization&q=%C3%A9valuation&limit=1&offset=1');
      expect(page).toMatchObject({ ids: [ids.ownPrivate], total: 2 });
    });

    it('refuses an unknown scope or parameter with 400', async () => {
      expectError(await call(tokens.owner, 'GET', '/api/rubrics?scope=everything'), 400, 'invalid_query', 'scope');
      expectError(await call(tokens.owner, 'GET', '/api/rubrics?type=classic'), 400, 'invalid_query');
    });
  });

  describe('changing and deleting', () => {
    it('replaces the fields sent, generates ids for new criteria, keeps rubricId and createdAt, and records the fields', async () => {
      const created = await createRubric(tokens.owner, rubricBody('Before'));
      const criteria = [
        ...created.criteria,
        { name: 'Style', description: 'Clarity of writing', weight: 0, levels: levels('The style').slice(0, 2) },
      ];
      const response = await call(tokens.owner, 'PATCH', `/api/rubrics/${created.rubricId}`, {
        rubricId: created.rubricId,
        title: 'After',
        criteria,
        visibility: 'organization',
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toMatchObject({
        rubricId: created.rubricId,
        title: 'After',
        description: 'Argumentative essays',
        visibility: 'organization',
      });
      expect(response.body.criteria.map((criterion: { id: string }) => criterion.id)).toEqual([
        'criterion-1',
        'criterion-2',
        'criterion-3',
      ]);
      expect(response.body.criteria[2].levels.map((level: { id: string }) => level.id)).toEqual([
        'criterion-3-level-1',
        'criterion-3-level-2',
      ]);
      expect(response.body.metadata.createdAt).toBe(created.metadata.createdAt);
      expect(response.body.metadata.modifiedAt >= created.metadata.modifiedAt).toBe(true);
      const audit = await listAuditEntries(server.store.db, { action: 'rubric.update', targetId: created.rubricId });
      expect(JSON.parse(audit[0]!.details)).toEqual({ fields: ['criteria', 'title', 'visibility'] });
    });

    it('checks the changed rubric as a whole, naming the path, and leaves it unchanged when refused', async () => {
      const created = await createRubric(tokens.owner, rubricBody('Checked'));
      const criteria = structuredClone(created.criteria);
      criteria[1].levels[0].score = 'four';
      expectError(
        await call(tokens.owner, 'PATCH', `/api/rubrics/${created.rubricId}`, { criteria }),
        400,
        'invalid_body',
        'criteria[1].levels[0].score',
      );
      expectError(
        await call(tokens.owner, 'PATCH', `/api/rubrics/${created.rubricId}`, { scoringType: 'stars' }),
        400,
        'invalid_body',
        'scoringType',
      );
      expectError(
        await call(tokens.owner, 'PATCH', `/api/rubrics/${created.rubricId}`, { rubricId: 'another-rubric-id' }),
        400,
        'immutable_field',
        'rubricId',
      );
      expectError(
        await call(tokens.owner, 'PATCH', `/api/rubrics/${created.rubricId}`, { owner: 'creator.a@merino.test' }),
        400,
        'immutable_field',
        'owner',
      );
      expectError(await call(tokens.owner, 'PATCH', `/api/rubrics/${created.rubricId}`, {}), 400, 'invalid_body');
      expect((await call(tokens.owner, 'GET', `/api/rubrics/${created.rubricId}`)).body).toEqual(created);
    });

    it('soft-deletes: 204, then 404 everywhere, gone from lists, and its rubricId is never given out again', async () => {
      const created = await createRubric(tokens.owner, rubricBody('Doomed', { rubricId: 'doomed-rubric-001' }));
      expect((await call(tokens.owner, 'DELETE', '/api/rubrics/doomed-rubric-001')).status).toBe(204);
      expectError(await call(tokens.owner, 'GET', '/api/rubrics/doomed-rubric-001'), 404, 'not_found');
      expectError(await call(tokens.system, 'DELETE', '/api/rubrics/doomed-rubric-001'), 404, 'not_found');
      expectError(await call(tokens.owner, 'PATCH', '/api/rubrics/doomed-rubric-001', { title: 'Back' }), 404, 'not_found');
      const mine = await call(tokens.owner, 'GET', '/api/rubrics?limit=200');
      expect(mine.body.items.map((item: { rubricId: string }) => item.rubricId)).not.toContain(created.rubricId);
      expectError(
        await call(tokens.owner, 'POST', '/api/rubrics', rubricBody('Again', { rubricId: 'doomed-rubric-001' })),
        409,
        'rubric_id_taken',
      );
      expect(await listAuditEntries(server.store.db, { action: 'rubric.delete', targetId: 'doomed-rubric-001' })).toHaveLength(1);
    });
  });

  describe('export and import', () => {
    it('exports LAMB rubric JSON that imports as a new private rubric with the same content and a new rubricId', async () => {
      const original = await createRubric(
        tokens.owner,
        rubricBody('Round trip', {
          visibility: 'organization',
          metadata: { subject: 'History', tags: ['essay', 'source'], course: 'H-1' },
        }),
      );
      const exported = await call(tokens.owner, 'GET', `/api/rubrics/${original.rubricId}/export`);
      expect(exported.status).toBe(200);
      expect(exported.headers.get('content-disposition')).toBe('attachment; filename="round-trip.json"');
      expect(exported.body).toEqual(documentOf(original));
      const imported = await call(tokens.creatorA, 'POST', '/api/rubrics/import', exported.body);
      expect(imported.status, imported.text).toBe(201);
      expect(imported.body.rubricId).toMatch(UUID_PATTERN);
      expect(imported.body.rubricId).not.toBe(original.rubricId);
      expect(imported.body).toMatchObject({ visibility: 'private', owner: 'creator.a@merino.test', is_mine: true });
      const { rubricId: _a, metadata: originalMetadata, ...originalRest } = exported.body;
      const { rubricId: _b, metadata: importedMetadata, ...importedRest } = documentOf(imported.body) as Record<string, any>;
      expect(importedRest).toEqual(originalRest);
      expect({ ...importedMetadata, createdAt: 0, modifiedAt: 0 }).toEqual({ ...originalMetadata, createdAt: 0, modifiedAt: 0 });
      const markdown = async (rubricId: string, token: string) => {
        const response = await call(token, 'GET', `/api/rubrics/${rubricId}/export?format=markdown`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
        expect(response.headers.get('content-disposition')).toBe('attachment; filename="round-trip.md"');
        return response.text;
      };
      const originalMarkdown = await markdown(original.rubricId, tokens.owner);
      expect(withoutDates(await markdown(imported.body.rubricId, tokens.creatorA))).toBe(withoutDates(originalMarkdown));
      expect(originalMarkdown).toContain('# Round trip');
      expect(originalMarkdown).toContain(
        '| **Thesis** (weight 60) | The thesis is clear and compelling | The thesis is clear | The thesis is partly clear | The thesis is missing |',
      );
    });

    it('imports the same export twice, and a LAMB rubric row with rubric_data as a JSON string', async () => {
      const document = {
        ...rubricBody('LAMB row'),
        rubricId: 'lamb-row-1700000000',
        metadata: { subject: 'Maths', createdAt: '2025-01-01T00:00:00', modifiedAt: '2025-01-02T00:00:00' },
      };
      const first = await call(tokens.owner, 'POST', '/api/rubrics/import', document);
      const second = await call(tokens.owner, 'POST', '/api/rubrics/import', document);
      expect([first.status, second.status]).toEqual([201, 201]);
      expect(first.body.rubricId).not.toBe(second.body.rubricId);
      expect(first.body.metadata.createdAt).not.toBe('2025-01-01T00:00:00');
      const row = {
        id: 5,
        rubric_id: 'lamb-row-1700000000',
        owner_email: 'teacher@lamb.example',
        is_public: true,
        rubric_data: JSON.stringify(document),
      };
      const fromRow = await call(tokens.owner, 'POST', '/api/rubrics/import', row);
      expect(fromRow.status, fromRow.text).toBe(201);
      expect(fromRow.body).toMatchObject({ title: 'LAMB row', visibility: 'private', metadata: { subject: 'Maths' } });
      expect(await listAuditEntries(server.store.db, { action: 'rubric.import', targetId: fromRow.body.rubricId })).toHaveLength(1);
    });

    it('refuses an import that breaks LAMB rules, naming the path inside rubric_data when it came in a row', async () => {
      const broken = { ...rubricBody('Broken'), scoringType: 'grades' };
      expectError(await call(tokens.owner, 'POST', '/api/rubrics/import', broken), 400, 'invalid_body', 'scoringType');
      expectError(
        await call(tokens.owner, 'POST', '/api/rubrics/import', { rubric_data: broken }),
        400,
        'invalid_body',
        'rubric_data.scoringType',
      );
      expectError(
        await call(tokens.owner, 'POST', '/api/rubrics/import', { rubric_data: '{not json' }),
        400,
        'invalid_body',
        'rubric_data',
      );
    });

    it('refuses an unknown export format with 400', async () => {
      const created = await createRubric(tokens.owner, rubricBody('Format'));
      expectError(await call(tokens.owner, 'GET', `/api/rubrics/${created.rubricId}/export?format=pdf`), 400, 'invalid_query', 'format');
    });
  });
});
