/**
 * Proves over real HTTP, on SQLite and PostgreSQL, that `GET /api/usage` gives each role exactly
 * its share of the daily roll-up (system admins everything, organization admins their
 * organization, creators their own use and their own assistants' use, learners their own use,
 * anonymous nothing), refuses hostile queries with a 400 naming the problem, answers CSV, and
 * answers 50 requests at once; and that an organization's model prices are read and replaced only
 * by its admins. Usage is seeded through the real roll-up (src/usage/usage-roll-up.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { rollUpUsage } from '../src/usage/usage-roll-up.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

const DAY = '2026-01-10';
const RANGE = `from=2026-01-01&to=2026-01-31`;

describe.each(TEST_DIALECTS)('usage reports per role on %s', (dialect) => {
  let server: TestServer;
  let systemAdmin: string;
  let organizationA: number;
  let organizationB: number;
  let adminA: CreatedUser;
  let adminB: CreatedUser;
  let creator: CreatedUser;
  let colleague: CreatedUser;
  let learner: CreatedUser;
  let creatorAssistant: number;
  let colleagueAssistant: number;

  async function assistantOf(person: CreatedUser, name: string): Promise<number> {
    const created = await request(server, 'POST', '/api/assistants', {
      token: person.token,
      body: { name, metadata: { assistant_type: 'multi_tool', connector: 'bypass', llm: 'simple-bypass', tools: [] } },
    });
    expect(created.status, created.text).toBe(201);
    return created.body.id as number;
  }

  const totals = async (token: string | undefined, query = '') => {
    const response = await request(server, 'GET', `/api/usage?${RANGE}${query}`, token === undefined ? {} : { token });
    return response;
  };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    systemAdmin = await loginAsAdmin(server);
    organizationA = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id;
    organizationB = await insertOrganization(server.store.db, `usage-b-${dialect}`, 'Organization B');
    adminA = await createUser(server, systemAdmin, { email: `usage-admin-a-${dialect}@merino.test`, role: 'admin', name: 'Admin A' });
    adminB = await createUser(server, systemAdmin, {
      email: `usage-admin-b-${dialect}@merino.test`,
      role: 'admin',
      organization_id: organizationB,
    });
    creator = await createUser(server, systemAdmin, {
      email: `usage-creator-${dialect}@merino.test`,
      role: 'creator',
      name: 'Cora Creator',
    });
    colleague = await createUser(server, systemAdmin, { email: `usage-colleague-${dialect}@merino.test`, role: 'creator', name: 'Colin' });
    learner = await createUser(server, systemAdmin, {
      email: `usage-learner-${dialect}@merino.test`,
      role: 'learner',
      name: 'Lea Learner',
    });
    creatorAssistant = await assistantOf(creator, 'Cell biology');
    colleagueAssistant = await assistantOf(colleague, 'Algebra');
    const assistantB = await assistantOf(adminB, 'Organization B tutor');
    const row = (organizationId: number, userId: number, assistantId: number, tokens: [number, number], model = 'gpt-4o-mini') => ({
      created_at: `${DAY}T10:00:00.000Z`,
      organization_id: organizationId,
      user_id: userId,
      assistant_id: assistantId,
      connector: 'openai',
      model,
      prompt_tokens: tokens[0],
      completion_tokens: tokens[1],
      total_tokens: tokens[0] + tokens[1],
      duration_ms: 5,
      outcome: 'completed',
      request_id: null,
    });
    await rollUpUsage(server.store.db, [
      row(organizationA, learner.id, creatorAssistant, [100, 50]),
      row(organizationA, colleague.id, colleagueAssistant, [200, 100]),
      row(organizationA, creator.id, colleagueAssistant, [10, 10], 'mystery-model'),
      row(organizationB, adminB.id, assistantB, [1000, 1000]),
    ]);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('gives a system admin every organization, or the one named', async () => {
    const all = await totals(systemAdmin);
    expect(all.status, all.text).toBe(200);
    expect(all.body.totals).toMatchObject({ requests: 4, prompt_tokens: 1310, completion_tokens: 1160, total_tokens: 2470 });
    const onlyB = await totals(systemAdmin, `&organization_id=${organizationB}`);
    expect(onlyB.body.totals.prompt_tokens).toBe(1000);
  });

  it("gives an organization's admin their organization only, and hides the other one", async () => {
    const own = await totals(adminA.token, '&group_by=user');
    expect(own.status).toBe(200);
    expect(own.body.totals).toMatchObject({ requests: 3, prompt_tokens: 310 });
    expect(own.body.groups.map((group: { label: string }) => group.label).sort()).toEqual(['Colin', 'Cora Creator', 'Lea Learner']);
    expect((await totals(adminA.token, `&organization_id=${organizationB}`)).status).toBe(404);
    const other = await totals(adminB.token);
    expect(other.body.totals).toMatchObject({ requests: 1, prompt_tokens: 1000 });
  });

  it('gives a creator their own use and all use of their own assistants, naming only themselves', async () => {
    const own = await totals(creator.token, '&group_by=assistant');
    expect(own.body.totals).toMatchObject({ requests: 2, prompt_tokens: 110 });
    expect(own.body.groups).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: String(creatorAssistant), label: 'Cell biology', prompt_tokens: 100 }),
        expect.objectContaining({ key: String(colleagueAssistant), label: 'Algebra', prompt_tokens: 10 }),
      ]),
    );
    // Their use of a colleague's assistant is theirs to see; the colleague's own use of it is not.
    expect((await totals(creator.token, `&assistant_id=${colleagueAssistant}`)).body.totals.prompt_tokens).toBe(10);
    const byUser = await totals(colleague.token, '&group_by=user');
    expect(byUser.body.totals).toMatchObject({ requests: 2, prompt_tokens: 210 });
    const labels = Object.fromEntries(byUser.body.groups.map((group: { key: string; label: string | null }) => [group.key, group.label]));
    expect(labels).toEqual({ [String(colleague.id)]: 'Colin', [String(creator.id)]: null });
  });

  it('gives a learner their own use, priced, and nothing of others even when they ask for it', async () => {
    const own = await totals(learner.token, '&group_by=model');
    expect(own.body.totals).toEqual({ requests: 1, prompt_tokens: 100, completion_tokens: 50, total_tokens: 150, cost_usd: 0.000045 });
    expect(own.body.groups).toEqual([
      { key: 'gpt-4o-mini', label: null, requests: 1, prompt_tokens: 100, completion_tokens: 50, total_tokens: 150, cost_usd: 0.000045 },
    ]);
    expect((await totals(learner.token, `&user_id=${colleague.id}`)).body.totals.requests).toBe(0);
    expect((await totals(learner.token, `&organization_id=${organizationB}`)).status).toBe(404);
  });

  it('refuses anonymous callers', async () => {
    expect((await totals(undefined)).status).toBe(401);
  });

  it('refuses hostile queries with a 400 naming the problem', async () => {
    const cases: Array<[string, RegExp]> = [
      ['/api/usage?from=2026-02-30&to=2026-03-01', /from is not a real day/],
      ['/api/usage?from=2026-13-01&to=2026-12-01', /from is not a real day/],
      ['/api/usage?from=yesterday', /from/],
      ['/api/usage?from=2026-03-02&to=2026-03-01', /from is after to/],
      ['/api/usage?from=2020-01-01&to=2026-01-01', /USAGE_RANGE_DAYS_MAX/],
      ['/api/usage?group_by=week', /group_by/],
      ['/api/usage?user_id=abc', /user_id/],
      ['/api/usage?assistant_id=0', /assistant_id/],
      ['/api/usage?format=xml', /format/],
      ['/api/usage?colour=red', /colour|additional/],
    ];
    for (const [path, message] of cases) {
      const response = await request(server, 'GET', path, { token: adminA.token });
      expect(response.status, path).toBe(400);
      expect(response.body.error.message, path).toMatch(message);
      expect(response.text).not.toMatch(/ at .*\.ts/);
    }
  });

  it('answers CSV when asked by format or by Accept', async () => {
    const byFormat = await request(server, 'GET', `/api/usage?${RANGE}&group_by=user&format=csv`, { token: adminA.token });
    expect(byFormat.status).toBe(200);
    expect(byFormat.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = byFormat.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('group_by,key,label,requests,prompt_tokens,completion_tokens,total_tokens,cost_usd');
    expect(lines).toHaveLength(5);
    expect(lines).toContain(`user,${learner.id},Lea Learner,1,100,50,150,0.000045`);
    expect(lines.at(-1)).toMatch(/^user,total,,3,310,160,470,/);
    const byAccept = await request(server, 'GET', `/api/usage?${RANGE}`, { token: adminA.token, headers: { accept: 'text/csv' } });
    expect(byAccept.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(byAccept.text.split('\r\n')[1]).toBe(`day,${DAY},,3,310,160,470,0.000135`);
  });

  it('answers 50 reports at once, each the same', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, () => totals(adminA.token, '&group_by=assistant')));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(answers[0]!.body);
    }
  });

  it("lets only an organization's admins read and replace its model prices", async () => {
    const path = `/api/organizations/${organizationA}/model-prices`;
    const read = await request(server, 'GET', path, { token: adminA.token });
    expect(read.status).toBe(200);
    expect(read.body.prices).toContainEqual({
      model: 'gpt-4o-mini',
      input_usd_per_million: 0.15,
      output_usd_per_million: 0.6,
      source: 'default',
    });
    const body = { prices: [{ model: 'gpt-4o-mini', input_usd_per_million: 1, output_usd_per_million: 2 }] };
    const replaced = await request(server, 'PUT', path, { token: adminA.token, body });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body.prices).toContainEqual({
      model: 'gpt-4o-mini',
      input_usd_per_million: 1,
      output_usd_per_million: 2,
      source: 'organization',
    });
    expect((await request(server, 'PUT', path, { token: systemAdmin, body })).status).toBe(200);
    expect((await request(server, 'PUT', path, { token: creator.token, body })).status).toBe(403);
    expect((await request(server, 'GET', path, { token: learner.token })).status).toBe(403);
    expect((await request(server, 'PUT', path, { token: adminB.token, body })).status).toBe(404);
    expect((await request(server, 'GET', path, {})).status).toBe(401);
    const twice = await request(server, 'PUT', path, { token: adminA.token, body: { prices: [...body.prices, ...body.prices] } });
    expect(twice.status).toBe(400);
    expect(twice.body.error.message).toMatch(/priced twice/);
    const negative = await request(server, 'PUT', path, {
      token: adminA.token,
      body: { prices: [{ model: 'x', input_usd_per_million: -1, output_usd_per_million: 0 }] },
    });
    expect(negative.status).toBe(400);
    expect((await request(server, 'GET', '/api/organizations/999999/model-prices', { token: systemAdmin })).status).toBe(404);
    const audit = await server.store.db.selectFrom('audit_log').select('action').where('action', '=', 'model_prices.replaced').execute();
    expect(audit).toHaveLength(2);
    const burst = await Promise.all(Array.from({ length: 50 }, () => request(server, 'PUT', path, { token: adminA.token, body })));
    expect(burst.map((answer) => answer.status)).toEqual(Array(50).fill(200));
  });
});
