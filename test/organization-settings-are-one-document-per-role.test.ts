/**
 * Proves `GET/PATCH /api/organizations/{id}/settings` carries the organization's settings in one
 * document (member policies, providers and models, small fast model, knowledge-base server,
 * Moodle, enabled plugins and limits), that `/providers` still serves its part, who may read and
 * change it (system admin, the organization's admin, its creators and learners, another
 * organization's admin, anonymous), that hostile values are 400s naming the field, and that 50
 * changes at once all land.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const NO_LIMITS = {
  tokens_per_user_per_day: null,
  tokens_per_month: null,
  cost_per_month_usd: null,
  max_assistants: null,
  max_assistants_per_user: null,
  storage_gb: null,
};

describe.each(TEST_DIALECTS)('organization settings in one document on %s', (dialect) => {
  let server: TestServer;
  let systemAdmin: string;
  let organizationA: number;
  let organizationB: number;
  const tokens: Record<'admin' | 'creator' | 'learner', string> = { admin: '', creator: '', learner: '' };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    systemAdmin = await loginAsAdmin(server);
    organizationA = (await request(server, 'GET', '/api/me', { token: systemAdmin })).body.organization_id;
    organizationB = await insertOrganization(server.store.db, 'faculty-b', 'Faculty B');
    for (const role of ['admin', 'creator', 'learner'] as const) {
      tokens[role] = (await createUser(server, systemAdmin, { email: `${role}@b.test`, role, organization_id: organizationB })).token;
    }
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
  });

  const settingsPath = (organizationId: number) => `/api/organizations/${organizationId}/settings`;

  it('shows every part at once, every plugin enabled and no limit until set', async () => {
    const read = await request(server, 'GET', settingsPath(organizationB), { token: tokens.admin });
    expect(read.status, read.text).toBe(200);
    expect(Object.keys(read.body).sort()).toEqual(
      [
        'chat_retention_days',
        'front_end_creates_learners',
        'kb_server',
        'learners_create_api_keys',
        'limits',
        'lti_instructors_create',
        'models',
        'moodle',
        'owners_can_read_chats',
        'plugins',
        'providers',
        'small_fast_model',
        'web_search',
      ].sort(),
    );
    expect(read.body.limits).toEqual(NO_LIMITS);
    const installedTools = server.services.registries.tools.list().map((definition) => definition.name);
    expect(Object.keys(read.body.plugins.tools).sort()).toEqual([...installedTools].sort());
    expect(Object.values(read.body.plugins.tools).every((enabled) => enabled === true)).toBe(true);
    expect(read.body.plugins.connectors.openai).toBe(true);
    expect(read.body.plugins.prompt_processors.simple_augment).toBe(true);
  });

  it('changes policies, providers, plugins and limits in one patch, and /providers shows its part of it', async () => {
    const changed = await request(server, 'PATCH', settingsPath(organizationB), {
      token: tokens.admin,
      body: {
        learners_create_api_keys: false,
        small_fast_model: { connector: 'openai', model: 'gpt-4o-mini' },
        moodle: { api_url: 'https://moodle.example.edu/webservice/rest/server.php', token: 'moodle-secret-token-1' },
        plugins: { tools: { weather: false }, prompt_processors: { moodle_augment: false } },
        limits: { max_assistants: 40, storage_gb: 2.5, cost_per_month_usd: 120.5, tokens_per_user_per_day: 50_000 },
      },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.text).not.toContain('moodle-secret-token-1');
    expect(changed.body.learners_create_api_keys).toBe(false);
    expect(changed.body.small_fast_model).toEqual({ connector: 'openai', model: 'gpt-4o-mini' });
    expect(changed.body.moodle.token_set).toBe(true);
    expect(changed.body.plugins.tools.weather).toBe(false);
    expect(changed.body.plugins.tools.simple_rag).toBe(true);
    expect(changed.body.plugins.prompt_processors.moodle_augment).toBe(false);
    expect(changed.body.limits).toEqual({
      ...NO_LIMITS,
      max_assistants: 40,
      storage_gb: 2.5,
      cost_per_month_usd: 120.5,
      tokens_per_user_per_day: 50_000,
    });
    const providers = await request(server, 'GET', `/api/organizations/${organizationB}/providers`, { token: tokens.admin });
    expect(providers.status).toBe(200);
    expect(providers.body.small_fast_model).toEqual({ connector: 'openai', model: 'gpt-4o-mini' });
    const throughProviders = await request(server, 'PATCH', `/api/organizations/${organizationB}/providers`, {
      token: tokens.admin,
      body: { small_fast_model: null },
    });
    expect(throughProviders.status).toBe(200);
    const again = await request(server, 'GET', settingsPath(organizationB), { token: tokens.admin });
    expect(again.body.small_fast_model).toBeNull();
    // The provider change kept the plugins and limits beside it in the config.
    expect(again.body.plugins.tools.weather).toBe(false);
    expect(again.body.limits.max_assistants).toBe(40);

    const cleared = await request(server, 'PATCH', settingsPath(organizationB), {
      token: tokens.admin,
      body: { plugins: { tools: { weather: true } }, limits: { storage_gb: null } },
    });
    expect(cleared.body.plugins.tools.weather).toBe(true);
    expect(cleared.body.limits.storage_gb).toBeNull();
    expect(cleared.body.limits.max_assistants).toBe(40);
    const audit = await server.store.db
      .selectFrom('audit_log')
      .select('details')
      .where('action', '=', 'organization.controls_update')
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.details)).toEqual({ fields: ['limits.storage_gb', 'plugins.tools.weather'] });
  });

  it('lets the system admin and the organization admin in, and no one else', async () => {
    const cases: Array<[string, string | undefined, number, number]> = [
      ['system admin, other organization', systemAdmin, organizationB, 200],
      ['system admin, own organization', systemAdmin, organizationA, 200],
      ['organization admin, own organization', tokens.admin, organizationB, 200],
      ['organization admin, other organization', tokens.admin, organizationA, 404],
      ['creator', tokens.creator, organizationB, 403],
      ['learner', tokens.learner, organizationB, 403],
      ['anonymous', undefined, organizationB, 401],
    ];
    for (const [who, token, organizationId, status] of cases) {
      const read = await request(server, 'GET', settingsPath(organizationId), { token });
      expect(read.status, `GET as ${who}`).toBe(status);
      const change = await request(server, 'PATCH', settingsPath(organizationId), { token, body: { limits: { max_assistants: 7 } } });
      expect(change.status, `PATCH as ${who}`).toBe(status);
    }
    const refusedChanges = await server.store.db
      .selectFrom('organizations')
      .select('config')
      .where('id', '=', organizationA)
      .executeTakeFirstOrThrow();
    // Only the system admin's own patch reached organization A.
    expect(JSON.parse(refusedChanges.config).limits).toEqual({ max_assistants: 7 });
  });

  it('refuses hostile values with a 400 naming the field, saving nothing', async () => {
    const before = (await request(server, 'GET', settingsPath(organizationB), { token: tokens.admin })).body;
    const hostile: Array<[unknown, string]> = [
      [{ limits: { max_assistants: -1 } }, 'max_assistants'],
      [{ limits: { storage_gb: -0.5 } }, 'storage_gb'],
      [{ limits: { tokens_per_month: 1e300 } }, 'tokens_per_month'],
      [{ limits: { max_assistants_per_user: 2.5 } }, 'max_assistants_per_user'],
      [{ limits: { cost_per_month_usd: '100' } }, 'cost_per_month_usd'],
      [{ limits: { unlimited_everything: 1 } }, 'unlimited_everything'],
      [{ plugins: { tools: { no_such_tool: false } } }, 'no_such_tool'],
      [{ plugins: { connectors: { 'openai-but-not': false } } }, 'openai-but-not'],
      [{ plugins: { tools: { weather: 'off' } } }, 'plugins.tools'],
      [{ plugins: { widgets: {} } }, 'widgets'],
      [{ plugins: { tools: Object.fromEntries(Array.from({ length: 500 }, (_, index) => [`tool_${index}`, false])) } }, 'plugins.tools'],
      [{ limits: { max_assistants: 5 }, plugins: { tools: { no_such_tool: false } } }, 'no_such_tool'],
      [{}, ''],
    ];
    for (const [body, named] of hostile) {
      const refused = await request(server, 'PATCH', settingsPath(organizationB), { token: tokens.admin, body });
      expect(refused.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(`${refused.body.error.message} ${refused.body.error.param}`, refused.text).toContain(named);
      expect(refused.text).not.toMatch(/\bat \w+ \(|node_modules/);
    }
    const after = (await request(server, 'GET', settingsPath(organizationB), { token: tokens.admin })).body;
    expect(after).toEqual(before);
  });

  it('lands every one of 50 changes sent at once', async () => {
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        request(server, 'PATCH', settingsPath(organizationB), { token: tokens.admin, body: { limits: { max_assistants: 100 + index } } }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 50 }, () => 200));
    const final = await request(server, 'GET', settingsPath(organizationB), { token: tokens.admin });
    expect(final.body.limits.max_assistants).toBeGreaterThanOrEqual(100);
    expect(final.body.limits.max_assistants).toBeLessThan(150);
    const audits = await server.store.db
      .selectFrom('audit_log')
      .select((builder) => builder.fn.countAll<number | string>().as('count'))
      .where('action', '=', 'organization.controls_update')
      .where('organization_id', '=', organizationB)
      .executeTakeFirstOrThrow();
    expect(Number(audits.count)).toBeGreaterThanOrEqual(50);
  });
});
