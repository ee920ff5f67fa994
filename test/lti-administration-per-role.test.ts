/**
 * Proves who may manage LTI and see an activity: an organization's admins (and system admins)
 * create, list, change and revoke its consumers and platforms; its other members get 403; another
 * organization's admin gets 404 and never sees them in lists; anonymous callers get 401. Hostile
 * input (a frame origin with a path or another scheme, both or neither of jwks_url and
 * public_key, an internal JWKS address, unknown fields, over-long names) is a 400 naming the
 * field. An activity's dashboard (learners, visits, chats, messages, usage) is for whoever
 * launched it as Instructor and the organization's admins; a learner who launched it gets 403.
 * Its learners' chats appear, by pseudonym, only to the assistant's managers and only once the
 * organization allows owners to read chats.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postLaunch, signedLaunch, type ConsumerCredentials } from './fakes/lti-consumer.js';
import { peopleInTwoOrganizations } from './support/two-organizations.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

describe.each(TEST_DIALECTS)('LTI administration per role (%s)', (dialect) => {
  let server: TestServer;
  let systemAdmin: string;
  let admin: string;
  let creator: string;
  let learner: string;
  let otherAdmin: string;
  let organizationAId: number;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    systemAdmin = await loginAsAdmin(server);
    [admin, creator, learner, otherAdmin] = (await peopleInTwoOrganizations(server, systemAdmin, [
      { email: 'admin@a.test', role: 'admin', organization: 'A' },
      { email: 'creator@a.test', role: 'creator', organization: 'A' },
      { email: 'learner@a.test', role: 'learner', organization: 'A' },
      { email: 'admin@b.test', role: 'admin', organization: 'B' },
    ])) as [string, string, string, string];
    organizationAId = (await request(server, 'GET', '/api/me', { token: admin })).body.organization_id;
  }, 120_000);

  afterAll(async () => server.close());

  it('lets only the organization admins and system admins manage consumers', async () => {
    const created = await request(server, 'POST', '/api/lti/consumers', { token: admin, body: { name: 'Moodle A' } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.consumer_secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const id = created.body.id as number;
    const listed = await request(server, 'GET', '/api/lti/consumers', { token: admin });
    expect(listed.body.items.map((item: { id: number }) => item.id)).toContain(id);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.consumer_secret);
    expect((await request(server, 'GET', `/api/lti/consumers?organization_id=${organizationAId}`, { token: systemAdmin })).status).toBe(
      200,
    );

    for (const member of [creator, learner]) {
      expect((await request(server, 'GET', '/api/lti/consumers', { token: member })).status).toBe(403);
      expect((await request(server, 'POST', '/api/lti/consumers', { token: member, body: { name: 'x' } })).status).toBe(403);
      expect((await request(server, 'DELETE', `/api/lti/consumers/${id}`, { token: member })).status).toBe(403);
    }
    expect((await request(server, 'DELETE', `/api/lti/consumers/${id}`, { token: otherAdmin })).status).toBe(404);
    expect((await request(server, 'PATCH', `/api/lti/consumers/${id}`, { token: otherAdmin, body: { name: 'mine' } })).status).toBe(404);
    expect((await request(server, 'GET', `/api/lti/consumers?organization_id=${organizationAId}`, { token: otherAdmin })).status).toBe(404);
    expect((await request(server, 'GET', '/api/lti/consumers', { token: otherAdmin })).body.items).toEqual([]);
    expect((await request(server, 'GET', '/api/lti/consumers')).status).toBe(401);
    expect((await request(server, 'POST', '/api/lti/consumers', { body: { name: 'x' } })).status).toBe(401);
    expect((await request(server, 'DELETE', `/api/lti/consumers/${id}`, { token: admin })).status).toBe(204);
    expect((await request(server, 'DELETE', `/api/lti/consumers/${id}`, { token: admin })).status).toBe(404);
  });

  it('refuses hostile consumer input with a 400 naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{ name: 'x', frame_origins: ['https://moodle.example.edu/course'] }, 'frame_origins[0]'],
      [{ name: 'x', frame_origins: ['javascript:alert(1)'] }, 'frame_origins[0]'],
      [{ name: 'x', frame_origins: ["'unsafe-inline'"] }, 'frame_origins[0]'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ name: 'x', consumer_secret: 'chosen' }, 'consumer_secret'],
      [{}, 'name'],
    ];
    for (const [body, param] of cases) {
      const refused = await request(server, 'POST', '/api/lti/consumers', { token: admin, body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.param).toBe(param);
    }
    const form = await request(server, 'POST', '/api/lti/consumers', {
      token: admin,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
  });

  it('lets only the organization admins manage platforms, and refuses hostile registrations', async () => {
    const body = {
      issuer: 'https://moodle.a.example',
      client_id: 'client-a',
      deployment_ids: ['1'],
      auth_login_url: 'https://moodle.a.example/mod/lti/auth.php',
      auth_token_url: 'https://moodle.a.example/mod/lti/token.php',
      jwks_url: 'https://moodle.a.example/mod/lti/certs.php',
    };
    const created = await request(server, 'POST', '/api/lti/platforms', { token: admin, body });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as number;
    expect((await request(server, 'POST', '/api/lti/platforms', { token: admin, body })).status).toBe(409);
    expect((await request(server, 'POST', '/api/lti/platforms', { token: creator, body: { ...body, client_id: 'c' } })).status).toBe(403);
    expect((await request(server, 'POST', '/api/lti/platforms', { token: learner, body: { ...body, client_id: 'c' } })).status).toBe(403);
    expect((await request(server, 'PUT', `/api/lti/platforms/${id}`, { token: otherAdmin, body })).status).toBe(404);
    expect((await request(server, 'DELETE', `/api/lti/platforms/${id}`, { token: otherAdmin })).status).toBe(404);
    expect((await request(server, 'GET', '/api/lti/platforms', { token: otherAdmin })).body.items).toEqual([]);
    expect((await request(server, 'GET', '/api/lti/platforms')).status).toBe(401);
    const updated = await request(server, 'PUT', `/api/lti/platforms/${id}`, {
      token: admin,
      body: { ...body, deployment_ids: ['1', '2'] },
    });
    expect(updated.body.deployment_ids).toEqual(['1', '2']);

    const hostile: Array<[Record<string, unknown>, string]> = [
      [{ ...body, client_id: 'x', jwks_url: 'http://10.0.0.5/certs' }, 'jwks_url'],
      [{ ...body, client_id: 'x', jwks_url: 'file:///etc/passwd' }, 'jwks_url'],
      [{ ...body, client_id: 'x', public_key: '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----' }, 'jwks_url'],
      [{ ...body, client_id: 'x', jwks_url: null }, 'jwks_url'],
      [{ ...body, client_id: 'x', auth_login_url: 'javascript:alert(1)' }, 'auth_login_url'],
      [{ ...body, client_id: 'x', deployment_ids: [] }, 'deployment_ids'],
      [{ ...body, client_id: 'x', extra: true }, 'extra'],
    ];
    for (const [input, param] of hostile) {
      const refused = await request(server, 'POST', '/api/lti/platforms', { token: admin, body: input });
      expect(refused.status, JSON.stringify(input)).toBe(400);
      expect(refused.body.error.param).toBe(param);
    }
    expect((await request(server, 'DELETE', `/api/lti/platforms/${id}`, { token: admin })).status).toBe(204);
  });

  it("shows an activity's dashboard to the Instructor who launched it and the admins only", async () => {
    const made = await request(server, 'POST', '/api/lti/consumers', { token: admin, body: { name: 'Dashboard Moodle' } });
    const consumer: ConsumerCredentials = { key: made.body.consumer_key, secret: made.body.consumer_secret };
    const assistant = await request(server, 'POST', '/api/assistants', {
      token: creator,
      body: {
        name: 'Tutor',
        system_prompt: 'Tutor.',
        prompt_template: '{user_input}',
        metadata: { llm: 'gpt-4o-mini', rag_processor: 'no_rag' },
      },
    });
    await request(server, 'PUT', `/api/assistants/${assistant.body.id}/publish`, { token: creator, body: { published: true } });
    const url = `${server.baseUrl}/lti/launch`;
    const launch = (userId: string, roles: string) =>
      postLaunch(
        url,
        signedLaunch(consumer, {
          url,
          parameters: {
            resource_link_id: 'dash-1',
            user_id: userId,
            roles,
            lis_person_name_full: userId,
            custom_assistant_id: String(assistant.body.id),
          },
        }),
      );
    const teacher = await launch('teacher-x', 'Instructor');
    const teacherCookie = teacher.cookie!.split(';')[0]!;
    const pupil = await launch('pupil-y', 'Learner');
    const pupilCookie = pupil.cookie!.split(';')[0]!;
    const activityId = (await request(server, 'GET', '/api/me', { headers: { cookie: pupilCookie } })).body.lti.activity_id as number;
    const chat = await request(server, 'POST', '/api/chats', {
      headers: { cookie: pupilCookie, origin: server.baseUrl },
      body: { assistant_id: assistant.body.id, title: 'Kept chat' },
    });
    expect(chat.status, chat.text).toBe(201);

    const seen = await request(server, 'GET', `/api/lti/activities/${activityId}`, { headers: { cookie: teacherCookie } });
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.learners).toEqual([{ name: 'pupil-y', launches: 1, last_visit: expect.any(String) }]);
    expect(seen.body.usage).toMatchObject({ chats: 1, messages: 0, requests: 0 });
    const page = await fetch(`${server.baseUrl}/lti/activities/${activityId}`, { headers: { cookie: teacherCookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('pupil-y');

    // The learners' chats: hidden while the organization keeps them private, then shown by
    // pseudonym to whoever manages the assistant (the admin here), never to the Instructor as such.
    const dashboardText = async (headers: Record<string, string>) =>
      (await fetch(`${server.baseUrl}/lti/activities/${activityId}`, { headers })).text();
    const privateChats = await dashboardText({ authorization: `Bearer ${admin}` });
    expect(privateChats).toContain('are shown here to whoever manages the assistant, when the organization allows it');
    expect(privateChats).not.toContain('Kept chat');
    const allowed = await request(server, 'PATCH', `/api/organizations/${organizationAId}/settings`, {
      token: admin,
      body: { owners_can_read_chats: true },
    });
    expect(allowed.status, allowed.text).toBe(200);
    expect(await dashboardText({ authorization: `Bearer ${admin}` })).toMatch(/Learner [0-9a-f]{6}: Kept chat \(0 messages\)/);
    const asInstructor = await dashboardText({ cookie: teacherCookie });
    expect(asInstructor).toContain('are shown here to whoever manages the assistant');
    expect(asInstructor).not.toContain('Kept chat');
    expect((await request(server, 'GET', `/api/lti/activities/${activityId}`, { token: admin })).status).toBe(200);
    expect((await request(server, 'GET', `/api/lti/activities/${activityId}`, { token: creator })).status).toBe(403);
    expect((await request(server, 'GET', `/api/lti/activities/${activityId}`, { headers: { cookie: pupilCookie } })).status).toBe(403);
    expect((await request(server, 'GET', `/api/lti/activities/${activityId}`, { token: otherAdmin })).status).toBe(404);
    expect((await request(server, 'GET', `/api/lti/activities/${activityId}`)).status).toBe(401);
    expect((await request(server, 'GET', '/api/lti/activities/99999', { token: admin })).status).toBe(404);
    expect(
      (
        await request(server, 'PUT', `/api/lti/activities/${activityId}/assistant`, {
          headers: { cookie: pupilCookie, origin: server.baseUrl },
          body: { assistant_id: assistant.body.id },
        })
      ).status,
    ).toBe(403);
  });
});
