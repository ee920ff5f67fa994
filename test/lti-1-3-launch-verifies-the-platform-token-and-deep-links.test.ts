/**
 * Proves the LTI 1.3 tool against a platform simulator over loopback (its own RSA keys and JWKS,
 * the OIDC redirect, form_post): a good launch lands on the chat of the assistant the custom claim
 * names; a wrong audience, an expired token, a replayed launch or nonce, a wrong deployment and an
 * unknown key id are 401 pages, audited; once the platform publishes the new key, launches pass;
 * a deep-linking round trip gives the platform a response JWT that verifies with the tool's JWKS
 * and names the assistant the teacher picked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEntries } from '../src/store/audit-log-repository.js';
import { FakeLtiPlatform, formIn, type NextLaunch } from './fakes/lti-platform.js';
import { loginThroughPlatform, submitLaunch, type PlatformLogin } from './support/lti-platform-login.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { startLti13World, type Lti13World } from './support/lti-1-3-world.js';
import { request, type TestServer } from './support/test-server.js';

const CLAIM = 'https://purl.imsglobal.org/spec/lti/claim/';

describe.each(TEST_DIALECTS)('LTI 1.3 launches (%s)', (dialect) => {
  let server: TestServer;
  let platform: FakeLtiPlatform;
  let assistantId: number;

  async function refusals(reason: string): Promise<number> {
    const entries = await listAuditEntries(server.store.db, { action: 'lti.launch_refused' });
    return entries.filter((entry) => (JSON.parse(entry.details) as { reason: string }).reason === reason).length;
  }

  /** The platform's form_post for a fresh login, with the state cookie of the browser that made it. */
  async function authorizedPost(next: NextLaunch): Promise<PlatformLogin> {
    return loginThroughPlatform(server.baseUrl, platform, next);
  }

  async function submit(post: PlatformLogin) {
    const answer = await submitLaunch(post);
    return { ...answer, cookie: answer.sessionCookie };
  }

  let world: Lti13World;

  beforeAll(async () => {
    world = await startLti13World(dialect, { LTI_JWKS_REFETCH_COOLDOWN_MS: '0' });
    ({ server, platform, assistantId } = world);
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  it('lands a good launch on the chat of the assistant its custom claim names, with the return URL', async () => {
    const launched = await submit(await authorizedPost({ custom: { assistant_id: String(assistantId) } }));
    expect(launched.status, launched.text).toBe(303);
    expect(launched.location).toBe(`/chat/${assistantId}`);
    const me = await request(server, 'GET', '/api/me', { headers: { cookie: launched.cookie! } });
    expect(me.body).toMatchObject({
      name: 'Pat Platform',
      role: 'learner',
      lti: { return_url: `${platform.issuer}/course/7`, instructor: false },
    });
  });

  it('refuses a token meant for another tool', async () => {
    const before = await refusals('invalid_token');
    const refused = await submit(await authorizedPost({ audience: 'another-tool' }));
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('meant for another tool');
    expect(await refusals('invalid_token')).toBe(before + 1);
  });

  it('refuses an expired token', async () => {
    const refused = await submit(await authorizedPost({ expiresIn: -120 }));
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('has expired');
  });

  it('refuses a replayed launch, and an old token whose nonce was spent, even with a fresh state', async () => {
    const post = await authorizedPost({ custom: { assistant_id: String(assistantId) } });
    expect((await submit(post)).status).toBe(303);
    const replayed = await submit(post);
    expect(replayed.status).toBe(401);
    expect(replayed.text).toContain('expired or was already used');
    const fresh = await authorizedPost({});
    const oldTokenNewState = await submit({ ...fresh, fields: { ...fresh.fields, id_token: post.fields.id_token! } });
    expect(oldTokenNewState.status).toBe(401);
    expect(await refusals('reused_nonce')).toBeGreaterThan(0);
  });

  it('refuses a deployment the registration does not list', async () => {
    const refused = await submit(await authorizedPost({ deploymentId: 'deployment-unknown' }));
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('deployment');
  });

  it('refuses a token signed with an unknown key id, then accepts it once the platform publishes the rotated key', async () => {
    await platform.addKey('platform-key-2', false);
    const fetchesBefore = platform.jwksRequests;
    const refused = await submit(await authorizedPost({ kid: 'platform-key-2', custom: { assistant_id: String(assistantId) } }));
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('key the platform does not publish');
    expect(platform.jwksRequests).toBeGreaterThan(fetchesBefore);
    platform.publish('platform-key-2');
    const accepted = await submit(await authorizedPost({ kid: 'platform-key-2', custom: { assistant_id: String(assistantId) } }));
    expect(accepted.status, accepted.text).toBe(303);
  });

  it('answers a deep-linking request with a response the platform verifies against the tool JWKS, naming the chosen assistant', async () => {
    const picker = await submit(
      await authorizedPost({
        messageType: 'LtiDeepLinkingRequest',
        subject: 'platform-teacher-1',
        roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'],
      }),
    );
    expect(picker.status, picker.text).toBe(200);
    expect(picker.text).toContain('Platform tutor');
    const pickerForm = formIn(picker.text);
    expect(pickerForm.action).toBe('/lti/1.3/deep-linking');
    const cookie = picker.cookie!;
    const answered = await fetch(`${server.baseUrl}/lti/1.3/deep-linking`, {
      method: 'POST',
      headers: { cookie, origin: server.baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...pickerForm.fields, assistant_id: String(assistantId) }).toString(),
    });
    expect(answered.status).toBe(200);
    expect(answered.headers.get('content-security-policy')).toContain(`form-action 'self' ${platform.issuer}`);
    const returnForm = formIn(await answered.text());
    expect(returnForm.action).toBe(platform.deepLinkReturnUrl);
    const posted = await fetch(returnForm.action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(returnForm.fields).toString(),
    });
    expect(posted.status).toBe(200);
    const response = platform.deepLinkingResponses.at(-1)!;
    expect(response[`${CLAIM}message_type`]).toBe('LtiDeepLinkingResponse');
    expect(response[`${CLAIM}deployment_id`]).toBe(platform.deploymentId);
    expect(response['https://purl.imsglobal.org/spec/lti-dl/claim/data']).toBe('platform-opaque-data');
    expect(response['https://purl.imsglobal.org/spec/lti-dl/claim/content_items']).toEqual([
      {
        type: 'ltiResourceLink',
        title: 'Platform tutor',
        url: `${server.baseUrl}/lti/1.3/launch`,
        custom: { assistant_id: String(assistantId) },
      },
    ]);
    // A learner's launch of the link the platform created from it lands on that assistant.
    const learner = await submit(
      await authorizedPost({ resourceLinkId: 'deep-linked', subject: 'learner-7', custom: { assistant_id: String(assistantId) } }),
    );
    expect(learner.location).toBe(`/chat/${assistantId}`);
  });

  it('refuses a deep-linking answer for someone else’s picker', async () => {
    const picker = await submit(
      await authorizedPost({
        messageType: 'LtiDeepLinkingRequest',
        subject: 'platform-teacher-2',
        roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'],
      }),
    );
    const other = await submit(
      await authorizedPost({
        messageType: 'LtiDeepLinkingRequest',
        subject: 'platform-teacher-3',
        roles: ['http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor'],
      }),
    );
    const answered = await fetch(`${server.baseUrl}/lti/1.3/deep-linking`, {
      method: 'POST',
      headers: { cookie: other.cookie!, origin: server.baseUrl, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...formIn(picker.text).fields, assistant_id: String(assistantId) }).toString(),
    });
    expect(answered.status).toBe(401);
  });

  it('publishes the tool key pair, the same one on every call', async () => {
    const first = await request(server, 'GET', '/lti/1.3/jwks');
    const second = await request(server, 'GET', '/lti/1.3/jwks');
    expect(first.body.keys).toHaveLength(1);
    expect(first.body.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) });
    expect(first.body.keys[0].d).toBeUndefined();
    expect(second.body).toEqual(first.body);
  });
});
