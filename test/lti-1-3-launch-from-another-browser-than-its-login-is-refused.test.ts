/**
 * Proves on both stores that an LTI 1.3 login is bound to the browser that started it (login
 * CSRF): the login sets a partitioned, path-scoped state cookie; a launch posting a valid token
 * and state without it (a victim's browser made to submit an attacker's login) is a 401 page with
 * no session, and the state survives it, so the real browser's launch with the cookie still works.
 * Neither a forged token nor another login's cookie uses up a state. When the platform offers its
 * storage (`lti_storage_target`), a launch without the cookie is answered with the page that reads
 * the secret back from the platform; the secret is taken back only from Merino's own page, never
 * from a form another site posts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEntries } from '../src/store/audit-log-repository.js';
import { formIn } from './fakes/lti-platform.js';
import { loginThroughPlatform, submitLaunch, type PlatformLogin } from './support/lti-platform-login.js';
import { startLti13World, type Lti13World } from './support/lti-1-3-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';

describe.each(TEST_DIALECTS)('LTI 1.3 login bound to its browser (%s)', (dialect) => {
  let world: Lti13World;

  beforeAll(async () => {
    world = await startLti13World(dialect);
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  async function unboundRefusals(): Promise<number> {
    const entries = await listAuditEntries(world.server.store.db, { action: 'lti.launch_refused' });
    return entries.filter((entry) => (JSON.parse(entry.details) as { reason: string }).reason === 'unbound_state').length;
  }

  function login(extra: Record<string, string> = {}): Promise<PlatformLogin> {
    return loginThroughPlatform(world.server.baseUrl, world.platform, { custom: { assistant_id: String(world.assistantId) } }, extra);
  }

  it('sets a short-lived, partitioned state cookie for the launch URL only', async () => {
    const response = await fetch(
      `${world.server.baseUrl}/lti/1.3/login?${new URLSearchParams({
        iss: world.platform.issuer,
        login_hint: 'user-1',
        target_link_uri: `${world.server.baseUrl}/lti/1.3/launch`,
      }).toString()}`,
      { redirect: 'manual' },
    );
    expect(response.status).toBe(302);
    const [cookie] = response.headers.getSetCookie();
    const state = new URL(response.headers.get('location')!).searchParams.get('state');
    expect(cookie).toMatch(new RegExp(`^merino_lti_state_${state}=[A-Za-z0-9_-]{43}; `));
    expect(cookie).toContain('Path=/lti/1.3/launch; Max-Age=600; HttpOnly; SameSite=None; Secure; Partitioned');
  });

  it('refuses a launch from a browser that never made the login request, without using up the state', async () => {
    const before = await unboundRefusals();
    const post = await login();
    const forged = await submitLaunch(post, { withoutCookie: true });
    expect(forged.status).toBe(401);
    expect(forged.text).toContain('was not started in this browser');
    expect(forged.sessionCookie).toBeUndefined();
    expect(await unboundRefusals()).toBe(before + 1);
    // The attacker knows the secret of a login they started; as a form field from their site it counts for nothing.
    const secret = post.cookie.split('=')[1]!;
    const withField = await submitLaunch(
      { ...post, fields: { ...post.fields, platform_storage_secret: secret } },
      { withoutCookie: true, headers: { origin: 'https://attacker.example' } },
    );
    expect(withField.status).toBe(401);
    expect(withField.sessionCookie).toBeUndefined();

    const genuine = await submitLaunch(post);
    expect(genuine.status, genuine.text).toBe(303);
    expect(genuine.location).toBe(`/chat/${world.assistantId}`);
    expect(genuine.sessionCookie).toBeDefined();
    expect(genuine.setCookies).toContainEqual(
      expect.stringMatching(/^merino_lti_state_[A-Za-z0-9_-]+=; Path=\/lti\/1\.3\/launch; Max-Age=0;/),
    );
  });

  it("refuses another login's cookie presented under this state's name", async () => {
    const first = await login();
    const second = await login();
    const otherSecret = second.cookie.split('=')[1]!;
    const refused = await submitLaunch({ ...first, cookie: `${first.cookie.split('=')[0]!}=${otherSecret}` });
    expect(refused.status).toBe(401);
    expect(refused.sessionCookie).toBeUndefined();
    expect((await submitLaunch(first)).status).toBe(303);
  });

  it('leaves the state for the real launch when a forged or broken token comes first', async () => {
    const post = await login();
    const garbage = await submitLaunch({ ...post, fields: { ...post.fields, id_token: 'not.a.token' } });
    expect(garbage.status).toBe(401);
    await world.platform.addKey('unpublished-key', false);
    const otherKey = await loginThroughPlatform(world.server.baseUrl, world.platform, { kid: 'unpublished-key' });
    const forged = await submitLaunch({ ...post, fields: { ...post.fields, id_token: otherKey.fields.id_token! } });
    expect(forged.status).toBe(401);
    const genuine = await submitLaunch(post);
    expect(genuine.status, genuine.text).toBe(303);
    // Used once, the state is gone.
    expect((await submitLaunch(post)).status).toBe(401);
  });

  it('reads the secret back from the platform storage when the browser brings no cookie', async () => {
    const post = await login({ lti_storage_target: '_parent' });
    const checking = await submitLaunch(post, { withoutCookie: true });
    expect(checking.status).toBe(200);
    expect(checking.sessionCookie).toBeUndefined();
    expect(checking.text).toContain('data-lti-storage="get"');
    expect(checking.text).toContain(`data-lti-key="state_${post.fields.state!}"`);
    expect(checking.text).toContain(`data-lti-origin="${world.platform.issuer}"`);
    const form = formIn(checking.text);
    expect(form.action).toBe('/lti/1.3/launch');
    const secret = post.cookie.split('=')[1]!;
    const relaunch = { action: `${world.server.baseUrl}${form.action}`, fields: { ...form.fields, platform_storage_secret: secret } };
    // Posted by another site, the field is ignored: the page is answered again, and nothing is signed in.
    const crossSite = await submitLaunch(relaunch, { headers: { origin: 'https://attacker.example' } });
    expect([crossSite.status, crossSite.sessionCookie]).toEqual([200, undefined]);
    const wrong = await submitLaunch(
      { ...relaunch, fields: { ...relaunch.fields, platform_storage_secret: 'not-the-secret' } },
      { headers: { origin: world.server.baseUrl } },
    );
    expect([wrong.status, wrong.sessionCookie]).toEqual([401, undefined]);
    const fromOwnPage = await submitLaunch(relaunch, { headers: { origin: world.server.baseUrl } });
    expect(fromOwnPage.status, fromOwnPage.text).toBe(303);
    expect(fromOwnPage.sessionCookie).toBeDefined();
  });
});
