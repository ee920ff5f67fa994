/**
 * Defect 10 over real HTTP on both dialects: with TRUST_FORWARDED_USER_HEADERS on, a learner who
 * mints an API key and sends `X-OpenWebUI-User-Email: victim@…` still acts as themselves; only a
 * key a system admin marked `trusted_front_end` may name the person chatting. Nobody but a system
 * admin creates such a key, or a key for someone else; the person such a key names must have an
 * account in its organization (test/open-webui-chats-run-as-the-forwarded-learner-with-steps-…).
 * Keys may expire (hostile dates refused), record when they were last used, and an organization
 * may stop its learners from creating keys.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { startFakeMoodleServer, type FakeMoodleServer } from './fakes/fake-moodle-server.js';
import { startFakeOpenAiServer, type FakeOpenAiServer } from './fakes/fake-openai-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const MOODLE_TOKEN = 'moodle-ws-token-for-forwarded-users';
const VICTIM_EMAIL = 'victim@school.test';

describe.each(TEST_DIALECTS)('forwarded users and API keys on %s', (dialect) => {
  let model: FakeOpenAiServer;
  let moodle: FakeMoodleServer;
  let server: TestServer;
  let systemAdmin: string;
  let organizationId: number;
  let otherOrganizationId: number;
  let users: Record<'admin' | 'creator' | 'learner' | 'victim' | 'otherLearner' | 'otherAdmin' | 'service', CreatedUser>;
  let assistantModel: string;

  const learnerEmail = `learner-${dialect}@school.test`;
  const createKey = (token: string | undefined, body: Record<string, unknown>) =>
    request(server, 'POST', '/api/api-keys', { ...(token !== undefined && { token }), body });
  const moodleEmails = () =>
    moodle.callsOf('core_user_get_users_by_field').map((call) => (call.parameters as { values: string[] }).values[0]);

  async function askForCourses(apiKey: string, forwardedEmail: string): Promise<void> {
    model.enqueue({ toolCalls: [{ id: 'm1', name: 'get_moodle_courses', arguments: '{}' }] }, { text: 'Your courses.' });
    const client = new OpenAI({
      apiKey,
      baseURL: `${server.baseUrl}/v1`,
      maxRetries: 0,
      defaultHeaders: { 'X-OpenWebUI-User-Email': forwardedEmail },
    });
    await client.chat.completions.create({ model: assistantModel, messages: [{ role: 'user', content: 'My courses?' }] });
  }

  beforeAll(async () => {
    model = await startFakeOpenAiServer();
    moodle = await startFakeMoodleServer({
      token: MOODLE_TOKEN,
      users: [
        { id: 51, username: 'learner', firstname: 'Lea', lastname: 'Rner', email: learnerEmail },
        { id: 52, username: 'victim', firstname: 'Vic', lastname: 'Tim', email: VICTIM_EMAIL },
      ],
      courses: [
        { id: 7, shortname: 'BIO101', fullname: 'Introduction to Biology' },
        { id: 8, shortname: 'LAW301', fullname: 'Confidential Law' },
      ],
      enrolments: [
        { userid: 51, courseid: 7 },
        { userid: 52, courseid: 8 },
      ],
    });
    server = await startTestServer(dialect, {
      environment: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: model.baseUrl,
        TRUST_FORWARDED_USER_HEADERS: 'true',
        OUTBOUND_ALLOWED_HOSTS: '127.0.0.1',
        // A key's expiry is moved by writing the store directly, as another process would; uncached, it is seen at once.
        API_KEY_CACHE_MS: '0',
      },
    });
    systemAdmin = await loginAsAdmin(server);
    organizationId = await insertOrganization(server.store.db, `school-${dialect}`, 'School');
    otherOrganizationId = await insertOrganization(server.store.db, `college-${dialect}`, 'College');
    const moodleSetting = await request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, {
      token: systemAdmin,
      body: { moodle: { api_url: moodle.apiUrl, token: MOODLE_TOKEN } },
    });
    expect(moodleSetting.status, moodleSetting.text).toBe(200);
    users = {
      admin: await createUser(server, systemAdmin, {
        email: `admin-${dialect}@school.test`,
        role: 'admin',
        organization_id: organizationId,
      }),
      creator: await createUser(server, systemAdmin, {
        email: `creator-${dialect}@school.test`,
        role: 'creator',
        organization_id: organizationId,
      }),
      learner: await createUser(server, systemAdmin, { email: learnerEmail, role: 'learner', organization_id: organizationId }),
      // A trusted front end's request runs as the Merino user its header names (docs/open-webui.md).
      victim: await createUser(server, systemAdmin, { email: VICTIM_EMAIL, role: 'learner', organization_id: organizationId }),
      otherLearner: await createUser(server, systemAdmin, {
        email: `learner-${dialect}@college.test`,
        role: 'learner',
        organization_id: otherOrganizationId,
      }),
      otherAdmin: await createUser(server, systemAdmin, {
        email: `admin-${dialect}@college.test`,
        role: 'admin',
        organization_id: otherOrganizationId,
      }),
      service: await createUser(server, systemAdmin, {
        email: `open-webui-${dialect}@school.test`,
        role: 'learner',
        organization_id: organizationId,
      }),
    };
    const created = await request(server, 'POST', '/api/assistants', {
      token: users.admin.token,
      body: { name: 'Course helper', system_prompt: 'Help.', metadata: { connector: 'openai', llm: 'gpt-4o-mini', tools: ['moodle'] } },
    });
    expect(created.status, created.text).toBe(201);
    expect(
      (await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: users.admin.token, body: { published: true } }))
        .status,
    ).toBe(200);
    assistantModel = `lamb_assistant.${created.body.id}`;
  });

  beforeEach(() => {
    model.reset();
    moodle.reset();
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(model)?.close();
    await possiblyUnset(moodle)?.close();
  });

  it("ignores the forwarded-user header on a learner's own key: the Moodle tools act as the learner, never the victim", async () => {
    const key = await createKey(users.learner.token, { name: 'my client' });
    expect(key.status, key.text).toBe(201);
    expect(key.body.trusted_front_end).toBe(false);
    await askForCourses(key.body.key, VICTIM_EMAIL);
    expect(moodleEmails()).toEqual([learnerEmail]);
    expect(JSON.stringify(model.requests.at(-1)?.body)).not.toContain('Confidential Law');
  });

  it('believes the forwarded-user header on a trusted front-end key a system admin issued for a service account', async () => {
    const key = await createKey(systemAdmin, { name: 'open-webui', trusted_front_end: true, user_id: users.service.id });
    expect(key.status, key.text).toBe(201);
    expect(key.body).toMatchObject({ trusted_front_end: true, expires_at: null });
    const me = await request(server, 'GET', '/api/me', { token: key.body.key });
    expect(me.body).toMatchObject({ email: users.service.email, credential: 'api_key' });
    await askForCourses(key.body.key, VICTIM_EMAIL);
    expect(moodleEmails()).toEqual([VICTIM_EMAIL]);
  });

  it.each([
    ['an organization admin', 'admin'],
    ['a creator', 'creator'],
    ['a learner', 'learner'],
    ['a user of another organization', 'otherLearner'],
    ['an admin of another organization', 'otherAdmin'],
  ] as const)('refuses a trusted front-end key, or a key for someone else, to %s (403)', async (_name, who) => {
    const trusted = await createKey(users[who].token, { name: 'sneaky', trusted_front_end: true });
    expect(trusted.status, trusted.text).toBe(403);
    expect(trusted.body.error).toMatchObject({ code: 'forbidden', param: 'trusted_front_end' });
    const forSomeoneElse = await createKey(users[who].token, { name: 'sneaky', user_id: users.service.id });
    expect(forSomeoneElse.status, forSomeoneElse.text).toBe(403);
    expect(forSomeoneElse.body.error).toMatchObject({ code: 'forbidden', param: 'user_id' });
    const listed = await request(server, 'GET', '/api/api-keys', { token: users[who].token });
    expect(listed.body.items.filter((item: { name: string }) => item.name === 'sneaky')).toEqual([]);
  });

  it('refuses anonymous key creation (401) and a trusted flag that is not a boolean (400)', async () => {
    expect((await createKey(undefined, { name: 'anonymous', trusted_front_end: true })).status).toBe(401);
    const wrongType = await createKey(users.learner.token, { name: 'typed', trusted_front_end: 'yes' });
    expect(wrongType.status).toBe(400);
  });

  it('answers 400 naming the user for a key issued for a user that does not exist', async () => {
    const missing = await createKey(systemAdmin, { name: 'ghost', user_id: 999_999 });
    expect(missing.status, missing.text).toBe(400);
    expect(missing.body.error.param).toBe('user_id');
  });

  it.each([
    ['not a date', 'tomorrow'],
    ['a date without a time', '2099-01-01'],
    ['a time without a zone', '2099-01-01T10:00:00'],
    ['a day that does not exist', '2099-02-30T10:00:00Z'],
    ['a month that does not exist', '2099-13-01T10:00:00Z'],
    ['a date in the past', '2001-01-01T00:00:00Z'],
    ['an absurdly long value', `2099-01-01T10:00:00Z${'0'.repeat(100)}`],
  ])('refuses an expiry that is %s with 400 naming expires_at', async (_name, expiresAt) => {
    const response = await createKey(users.learner.token, { name: 'expiring', expires_at: expiresAt });
    expect(response.status, response.text).toBe(400);
    expect(response.body.error.param).toBe('expires_at');
  });

  it('ends a key at its expiry with the same 401 as any bad token, and records its last use at most once a minute', async () => {
    const key = await createKey(users.creator.token, { name: 'short-lived', expires_at: '2099-06-30T12:00:00+02:00' });
    expect(key.status, key.text).toBe(201);
    expect(key.body).toMatchObject({ expires_at: '2099-06-30T10:00:00.000Z', last_used_at: null });
    expect((await request(server, 'GET', '/api/me', { token: key.body.key })).status).toBe(200);
    const afterUse = (await request(server, 'GET', '/api/api-keys', { token: users.creator.token })).body.items.find(
      (item: { id: number }) => item.id === key.body.id,
    );
    expect(afterUse.last_used_at).not.toBeNull();
    expect((await request(server, 'GET', '/api/me', { token: key.body.key })).status).toBe(200);
    const afterSecondUse = (await request(server, 'GET', '/api/api-keys', { token: users.creator.token })).body.items.find(
      (item: { id: number }) => item.id === key.body.id,
    );
    expect(afterSecondUse.last_used_at).toBe(afterUse.last_used_at);

    // The clock cannot be moved over HTTP, so the expiry is moved instead: to one second ago.
    await server.store.db
      .updateTable('api_keys')
      .set({ expires_at: new Date(Date.now() - 1_000).toISOString() })
      .where('id', '=', key.body.id)
      .execute();
    const expired = await request(server, 'GET', '/api/me', { token: key.body.key });
    expect(expired.status).toBe(401);
    expect(expired.body.error.code).toBe('invalid_token');
  });

  /** The organization's chat policies, untouched by these tests (docs/chats.md). */
  const CHAT_POLICY_DEFAULTS = { chat_retention_days: null, owners_can_read_chats: false } as const;

  describe('the organization setting learners_create_api_keys', () => {
    const setting = (token: string, id: number, value?: boolean) =>
      value === undefined
        ? request(server, 'GET', `/api/organizations/${id}/settings`, { token })
        : request(server, 'PATCH', `/api/organizations/${id}/settings`, { token, body: { learners_create_api_keys: value } });

    afterAll(async () => {
      await setting(systemAdmin, organizationId, true);
    });

    it('is on by default, and only the organization admins and system admins may read or change it', async () => {
      expect((await setting(users.admin.token, organizationId)).body).toMatchObject({
        learners_create_api_keys: true,
        lti_instructors_create: false,
        ...CHAT_POLICY_DEFAULTS,
      });
      expect((await setting(users.learner.token, organizationId, false)).status).toBe(403);
      expect((await setting(users.creator.token, organizationId)).status).toBe(403);
      expect((await setting(users.otherAdmin.token, organizationId, false)).status).toBe(404);
      expect((await request(server, 'GET', `/api/organizations/${organizationId}/settings`)).status).toBe(401);
      expect(
        (
          await request(server, 'PATCH', `/api/organizations/${organizationId}/settings`, {
            token: users.admin.token,
            body: { learners_create_api_keys: 'no' },
          })
        ).status,
      ).toBe(400);
      expect(
        (await request(server, 'PATCH', `/api/organizations/${organizationId}/settings`, { token: users.admin.token, body: {} })).status,
      ).toBe(400);
      expect((await setting(users.admin.token, 999_999)).status).toBe(404);
      expect((await setting(systemAdmin, 999_999)).status).toBe(404);
    });

    it("stops the organization's learners, and only them, from creating keys once its admin turns it off", async () => {
      const off = await setting(users.admin.token, organizationId, false);
      expect(off.status, off.text).toBe(200);
      expect(off.body).toMatchObject({ learners_create_api_keys: false, lti_instructors_create: false, ...CHAT_POLICY_DEFAULTS });
      const refused = await createKey(users.learner.token, { name: 'not allowed' });
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('forbidden');
      expect((await createKey(users.creator.token, { name: 'creators still may' })).status).toBe(201);
      expect((await createKey(users.admin.token, { name: 'admins still may' })).status).toBe(201);
      expect((await createKey(users.otherLearner.token, { name: 'other organizations are not affected' })).status).toBe(201);
      expect((await setting(systemAdmin, organizationId, true)).body).toMatchObject({
        learners_create_api_keys: true,
        lti_instructors_create: false,
        ...CHAT_POLICY_DEFAULTS,
      });
      expect((await createKey(users.learner.token, { name: 'allowed again' })).status).toBe(201);
    });

    it('records each change in the audit log', async () => {
      const entries = await server.store.db
        .selectFrom('audit_log')
        .selectAll()
        .where('action', '=', 'organization.settings_update')
        .where('organization_id', '=', organizationId)
        .execute();
      expect(entries.length).toBeGreaterThanOrEqual(2);
      expect(JSON.parse(entries[0]!.details)).toEqual({ learners_create_api_keys: false });
    });
  });
});
