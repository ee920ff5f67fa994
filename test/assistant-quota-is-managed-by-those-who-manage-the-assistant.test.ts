/**
 * `GET/PUT /api/assistants/{id}/quota` over real HTTP on SQLite and PostgreSQL: the owner and the
 * organization's admins read and set an assistant's monthly cost limit; a colleague of the same
 * organization who may chat with it gets 403, one who may not see it, someone of another
 * organization and a learner get 404 or 403 as for the assistant itself, and anonymous 401.
 * Hostile bodies and ids are 4xx naming the problem; 50 requests at once all answer, and the
 * limit saved is one of theirs. Each change is audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

describe.each(TEST_DIALECTS)('assistant quota endpoint on %s', (dialect) => {
  let server: TestServer;
  let systemAdmin: string;
  let owner: CreatedUser;
  let admin: CreatedUser;
  let colleague: CreatedUser;
  let learner: CreatedUser;
  let outsider: CreatedUser;
  let published: number;
  let unpublished: number;

  const quotaPath = (id: number) => `/api/assistants/${id}/quota`;
  const get = (id: number, token?: string) => request(server, 'GET', quotaPath(id), token === undefined ? {} : { token });
  const put = (id: number, body: unknown, token?: string) =>
    request(server, 'PUT', quotaPath(id), token === undefined ? { body } : { token, body });

  beforeAll(async () => {
    server = await startTestServer(dialect);
    systemAdmin = await loginAsAdmin(server);
    const organizationB = await insertOrganization(server.store.db, `quota-b-${dialect}`, 'Organization B');
    const person = (name: string, role: 'admin' | 'creator' | 'learner', organization_id?: number) =>
      createUser(server, systemAdmin, {
        email: `quota-${name}-${dialect}@merino.test`,
        role,
        ...(organization_id !== undefined && { organization_id }),
      });
    [owner, admin, colleague, learner, outsider] = await Promise.all([
      person('owner', 'creator'),
      person('admin', 'admin'),
      person('colleague', 'creator'),
      person('learner', 'learner'),
      person('outsider', 'creator', organizationB),
    ]);
    const create = async (name: string) => {
      const created = await request(server, 'POST', '/api/assistants', {
        token: owner.token,
        body: { name, system_prompt: 'Answer.', metadata: { connector: 'bypass', llm: 'debug-bypass' } },
      });
      expect(created.status, created.text).toBe(201);
      return created.body.id as number;
    };
    published = await create('Published');
    unpublished = await create('Private');
    expect(
      (await request(server, 'PUT', `/api/assistants/${published}/publish`, { token: owner.token, body: { published: true } })).status,
    ).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  it('lets the owner set and read the limit and thresholds, with no spend and no alerts yet', async () => {
    const empty = await get(published, owner.token);
    expect(empty.status, empty.text).toBe(200);
    expect(empty.body).toMatchObject({
      assistant_id: published,
      cost_per_month_usd: null,
      alert_thresholds: [],
      spent_usd: 0,
      spent_percent: null,
      alerts: [],
    });
    const set = await put(published, { cost_per_month_usd: 25 }, owner.token);
    expect(set.status, set.text).toBe(200);
    expect(set.body).toMatchObject({
      cost_per_month_usd: 25,
      alert_thresholds: [50, 80, 100],
      spent_usd: 0,
      spent_percent: 0,
      exceeded: false,
    });
    expect(set.body.alerts).toEqual([
      { threshold: 50, crossed: false, crossed_at: null },
      { threshold: 80, crossed: false, crossed_at: null },
      { threshold: 100, crossed: false, crossed_at: null },
    ]);
    expect(set.body.month).toBe(new Date().toISOString().slice(0, 7));
    const audit = await server.store.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'assistant.quota_update')
      .where('target_id', '=', String(published))
      .execute();
    expect(audit.map((entry) => JSON.parse(entry.details))).toEqual([{ cost_per_month_usd: 25, alert_thresholds: [50, 80, 100] }]);
  });

  it("lets the organization's admins and system admins manage it too, and removes it with null", async () => {
    expect((await put(published, { cost_per_month_usd: 10, alert_thresholds: [90, 25] }, admin.token)).body.alert_thresholds).toEqual([
      25, 90,
    ]);
    expect((await get(published, systemAdmin)).body.cost_per_month_usd).toBe(10);
    const removed = await put(published, { cost_per_month_usd: null }, systemAdmin);
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body).toMatchObject({ cost_per_month_usd: null, alert_thresholds: [], alerts: [] });
  });

  it('answers others as the assistant itself would: 403 to those who see it, 404 to those who do not, 401 anonymous', async () => {
    const body = { cost_per_month_usd: 1 };
    // A colleague and a learner of the same organization may chat with the published assistant, not manage it.
    expect((await get(published, colleague.token)).status).toBe(403);
    expect((await put(published, body, colleague.token)).status).toBe(403);
    expect((await get(published, learner.token)).status).toBe(403);
    expect((await put(published, body, learner.token)).status).toBe(403);
    // The unpublished one they cannot see at all, nor can anyone of another organization see either.
    for (const token of [colleague.token, learner.token, outsider.token]) {
      const response = await get(unpublished, token);
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
      expect((await put(unpublished, body, token)).status).toBe(404);
    }
    expect((await get(published, outsider.token)).status).toBe(404);
    expect((await put(published, body, outsider.token)).status).toBe(404);
    expect((await get(published)).status).toBe(401);
    expect((await put(published, body)).status).toBe(401);
    expect((await get(unpublished, owner.token)).body.cost_per_month_usd).toBeNull();
  });

  it('refuses hostile ids and bodies with a 4xx naming the problem, and keeps nothing of them', async () => {
    const cases: [unknown, string][] = [
      [{ cost_per_month_usd: -1 }, 'cost_per_month_usd'],
      [{ cost_per_month_usd: 0 }, 'cost_per_month_usd'],
      [{ cost_per_month_usd: 1e12 }, 'cost_per_month_usd'],
      [{ cost_per_month_usd: '5' }, 'cost_per_month_usd'],
      [{ cost_per_month_usd: 5, alert_thresholds: [0] }, 'alert_thresholds'],
      [{ cost_per_month_usd: 5, alert_thresholds: [101] }, 'alert_thresholds'],
      [{ cost_per_month_usd: 5, alert_thresholds: [50, 50] }, 'alert_thresholds'],
      [{ cost_per_month_usd: 5, alert_thresholds: [12.5] }, 'alert_thresholds'],
      [{ cost_per_month_usd: 5, alert_thresholds: Array.from({ length: 11 }, (_, index) => index + 1) }, 'alert_thresholds'],
      [{ cost_per_month_usd: 5, extra: true }, 'extra'],
      [{}, 'cost_per_month_usd'],
      [[], ''],
    ];
    for (const [body, named] of cases) {
      const response = await put(unpublished, body, owner.token);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.message).toContain(named);
    }
    for (const id of ['0', '-3', 'abc', '99999999999', '1.5']) {
      const response = await request(server, 'GET', `/api/assistants/${id}/quota`, { token: owner.token });
      expect(response.status, id).toBe(400);
    }
    expect((await get(987_654, owner.token)).status).toBe(404);
    expect((await get(unpublished, owner.token)).body.cost_per_month_usd).toBeNull();
  });

  it('answers 50 requests at once, reads and writes mixed, and keeps one of the limits sent', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        index % 2 === 0 ? put(unpublished, { cost_per_month_usd: index + 1 }, owner.token) : get(unpublished, owner.token),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 50 }, () => 200));
    const kept = (await get(unpublished, owner.token)).body.cost_per_month_usd as number;
    expect(Array.from({ length: 25 }, (_, index) => index * 2 + 1)).toContain(kept);
    const rows = await server.store.db
      .selectFrom('assistant_quotas')
      .select('assistant_id')
      .where('assistant_id', '=', unpublished)
      .execute();
    expect(rows).toHaveLength(1);
  });
});
