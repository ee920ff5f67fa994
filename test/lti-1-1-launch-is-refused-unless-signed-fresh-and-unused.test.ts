/**
 * Proves the LTI 1.1 provider: Merino's base string and HMAC-SHA1 signature match RFC 5849's
 * published vectors (duplicate keys included); a launch signed by an independent consumer lands
 * on /chat/{assistantId} with a session cookie; a bad signature, a stale timestamp, a reused
 * nonce, a changed body parameter or an unknown consumer key is a 401 page saying so, audited;
 * duplicate query keys enter the base string; behind TRUST_PROXY the scheme and host the
 * consumer saw are signed; an Instructor on an unset link is sent to the set-up page and binds
 * it, while a learner there is told the teacher has not set it up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hmacSha1Signature, signatureBaseString } from '../src/lti/oauth-signature.js';
import { listAuditEntries } from '../src/store/audit-log-repository.js';
import { postLaunch, signedLaunch, type ConsumerCredentials } from './fakes/lti-consumer.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';

describe('RFC 5849 signature vectors', () => {
  it('builds the base string of RFC 5849 §3.4.1.1, repeated a3 keys and all', () => {
    const body = [...new URLSearchParams('c2&a3=2+q')];
    const oauth: Array<[string, string]> = [
      ['oauth_consumer_key', '9djdj82h48djs9d2'],
      ['oauth_token', 'kkk9d7dh3k39sjv7'],
      ['oauth_signature_method', 'HMAC-SHA1'],
      ['oauth_timestamp', '137131201'],
      ['oauth_nonce', '7d8f3e4a'],
      ['oauth_signature', 'bYT5CMsGcbgUdFHObYMEfcx6bsw='],
    ];
    expect(
      signatureBaseString({
        method: 'POST',
        url: 'http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b',
        bodyParameters: [...body, ...oauth],
      }),
    ).toBe(
      'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk9d7dh3k39sjv7',
    );
  });

  it('signs the OAuth 1.0 "photos" example to its published signature, and nothing else to it', () => {
    const photos = {
      method: 'GET',
      url: 'http://photos.example.net/photos?file=vacation.jpg&size=original',
      bodyParameters: [
        ['oauth_consumer_key', 'dpf43f3p2l4k3l03'],
        ['oauth_token', 'nnch734d00sl2jdk'],
        ['oauth_signature_method', 'HMAC-SHA1'],
        ['oauth_timestamp', '1191242096'],
        ['oauth_nonce', 'kllo9940pd9333jh'],
        ['oauth_version', '1.0'],
      ] as Array<[string, string]>,
    };
    expect(hmacSha1Signature(photos, 'kd94hf93k423kf44', 'pfkkdhi9sl3r4s00')).toBe('tR3+Ty81lMeYAr/Fid0kMTYa/WM=');
    expect(hmacSha1Signature({ ...photos, url: `${photos.url}&size=original` }, 'kd94hf93k423kf44', 'pfkkdhi9sl3r4s00')).not.toBe(
      'tR3+Ty81lMeYAr/Fid0kMTYa/WM=',
    );
    expect(
      hmacSha1Signature(
        { ...photos, url: 'HTTP://Photos.Example.NET:80/photos?file=vacation.jpg&size=original' },
        'kd94hf93k423kf44',
        'pfkkdhi9sl3r4s00',
      ),
    ).toBe('tR3+Ty81lMeYAr/Fid0kMTYa/WM=');
  });
});

describe.each(TEST_DIALECTS)('LTI 1.1 launches (%s)', (dialect) => {
  let server: TestServer;
  let adminToken: string;
  let consumer: ConsumerCredentials;
  let consumerId: number;
  let assistantId: number;
  let launchUrl: string;

  async function refusalsWith(reason: string): Promise<number> {
    const entries = await listAuditEntries(server.store.db, { action: 'lti.launch_refused' });
    return entries.filter((entry) => (JSON.parse(entry.details) as { reason: string }).reason === reason).length;
  }

  function learnerLaunch(overrides: Record<string, string> = {}, options: { url?: string; timestamp?: number; nonce?: string } = {}) {
    return signedLaunch(consumer, {
      url: options.url ?? launchUrl,
      parameters: {
        resource_link_id: 'course-7-link-1',
        user_id: 'moodle-user-42',
        roles: 'Learner',
        lis_person_name_full: 'Ada Learner',
        custom_assistant_id: String(assistantId),
        launch_presentation_return_url: 'https://moodle.example.edu/course/view.php?id=7',
        ...overrides,
      },
      ...(options.timestamp !== undefined && { timestamp: options.timestamp }),
      ...(options.nonce !== undefined && { nonce: options.nonce }),
    });
  }

  beforeAll(async () => {
    server = await startTestServer(dialect);
    adminToken = await loginAsAdmin(server);
    launchUrl = `${server.baseUrl}/lti/launch`;
    const creator = await createUser(server, adminToken, { email: 'teacher@lti.test', role: 'creator' });
    const created = await request(server, 'POST', '/api/assistants', {
      token: creator.token,
      body: {
        name: 'Course tutor',
        system_prompt: 'You tutor.',
        prompt_template: '{user_input}',
        metadata: { llm: 'gpt-4o-mini', rag_processor: 'no_rag' },
      },
    });
    expect(created.status, created.text).toBe(201);
    assistantId = created.body.id;
    expect(
      (await request(server, 'PUT', `/api/assistants/${assistantId}/publish`, { token: creator.token, body: { published: true } })).status,
    ).toBe(200);
    const made = await request(server, 'POST', '/api/lti/consumers', { token: adminToken, body: { name: 'Moodle' } });
    expect(made.status, made.text).toBe(201);
    consumer = { key: made.body.consumer_key, secret: made.body.consumer_secret };
    consumerId = made.body.id;
  }, 120_000);

  afterAll(async () => server.close());

  it('lands a signed learner launch on the chat of the named assistant, with a session and the return URL', async () => {
    const launched = await postLaunch(launchUrl, learnerLaunch());
    expect(launched.status, launched.text).toBe(303);
    expect(launched.location).toBe(`/chat/${assistantId}`);
    expect(launched.cookie).toMatch(/^merino_session=mrs_[A-Za-z0-9_-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const cookie = launched.cookie!.split(';')[0]!;
    const me = await request(server, 'GET', '/api/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: 'Ada Learner', role: 'learner', credential: 'session' });
    expect(me.body.lti).toEqual({
      activity_id: expect.any(Number),
      return_url: 'https://moodle.example.edu/course/view.php?id=7',
      instructor: false,
    });
    // The same LTI user is the same Merino user next time.
    const again = await postLaunch(launchUrl, learnerLaunch());
    const meAgain = await request(server, 'GET', '/api/me', { headers: { cookie: again.cookie!.split(';')[0]! } });
    expect(meAgain.body.id).toBe(me.body.id);
  });

  it('refuses a launch whose signature is wrong, with a 401 page that says so, audited', async () => {
    const fields = learnerLaunch();
    fields.oauth_signature = 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=';
    const before = await refusalsWith('bad_signature');
    const refused = await postLaunch(launchUrl, fields);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    expect(refused.text).toContain('not signed with the secret Merino holds');
    expect(refused.text).not.toContain(consumer.secret);
    expect(refused.cookie).toBeNull();
    expect(await refusalsWith('bad_signature')).toBe(before + 1);
  });

  it('refuses a launch whose body was changed after signing', async () => {
    const fields = learnerLaunch();
    fields.user_id = 'someone-else';
    const refused = await postLaunch(launchUrl, fields);
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('changed on the way');
  });

  it('refuses a launch whose timestamp is more than five minutes off, either way', async () => {
    const before = await refusalsWith('stale_timestamp');
    const now = Math.floor(Date.now() / 1000);
    // Ten seconds past the window, not one: the timestamp is whole seconds, so `now + 301` lay less
    // than 300 s ahead of the server's clock whenever the second was nearly over when it was taken.
    for (const timestamp of [now - 310, now + 310]) {
      const refused = await postLaunch(launchUrl, learnerLaunch({}, { timestamp }));
      expect(refused.status).toBe(401);
      expect(refused.text).toContain('too old');
    }
    expect(await refusalsWith('stale_timestamp')).toBe(before + 2);
    expect((await postLaunch(launchUrl, learnerLaunch({}, { timestamp: now - 280 }))).status).toBe(303);
  });

  it('refuses a nonce used before', async () => {
    const fields = learnerLaunch({}, { nonce: `nonce-${dialect}-once` });
    expect((await postLaunch(launchUrl, fields)).status).toBe(303);
    const before = await refusalsWith('reused_nonce');
    const replayed = await postLaunch(launchUrl, fields);
    expect(replayed.status).toBe(401);
    expect(replayed.text).toContain('already used once');
    expect(await refusalsWith('reused_nonce')).toBe(before + 1);
  });

  it('refuses an unknown consumer key and a revoked consumer', async () => {
    const unknown = await postLaunch(
      launchUrl,
      signedLaunch(
        { key: 'merino-unknown', secret: consumer.secret },
        { url: launchUrl, parameters: { resource_link_id: 'x', user_id: 'y' } },
      ),
    );
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('does not know the consumer key');
    const other = await request(server, 'POST', '/api/lti/consumers', { token: adminToken, body: { name: 'Old Moodle' } });
    const credentials = { key: other.body.consumer_key as string, secret: other.body.consumer_secret as string };
    expect((await request(server, 'DELETE', `/api/lti/consumers/${other.body.id}`, { token: adminToken })).status).toBe(204);
    const revoked = await postLaunch(
      launchUrl,
      signedLaunch(credentials, { url: launchUrl, parameters: { resource_link_id: 'x', user_id: 'y' } }),
    );
    expect(revoked.status).toBe(401);
  });

  it('signs query parameters too, repeated keys each counted', async () => {
    const url = `${launchUrl}?tag=b&tag=a&plain=1`;
    const fields = learnerLaunch({}, { url });
    expect((await postLaunch(url, fields)).status).toBe(303);
    // The same signature over a URL that lost one of the repeated keys is refused.
    const resigned = learnerLaunch({}, { url });
    const refused = await postLaunch(`${launchUrl}?tag=b&plain=1`, resigned);
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('not signed');
  });

  it('refuses a launch that names a parameter twice in its body rather than guess which one counts', async () => {
    const fields = learnerLaunch();
    const body = `${new URLSearchParams(fields).toString()}&user_id=intruder`;
    const response = await fetch(launchUrl, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    expect(response.status).toBe(401);
    expect(await response.text()).toContain('user_id more than once');
  });

  it('sends an Instructor on an unset link to the set-up page, which binds it; a learner there is told it is not set up', async () => {
    const instructor = signedLaunch(consumer, {
      url: launchUrl,
      parameters: {
        resource_link_id: 'unset-link',
        user_id: 'moodle-teacher-1',
        roles: 'urn:lti:role:ims/lis/Instructor',
        lis_person_name_full: 'Tess Teacher',
      },
    });
    const launched = await postLaunch(launchUrl, instructor);
    expect(launched.status, launched.text).toBe(303);
    expect(launched.location).toMatch(/^\/lti\/activities\/\d+\/setup$/);
    const cookie = launched.cookie!.split(';')[0]!;
    const setUp = await fetch(`${server.baseUrl}${launched.location}`, { headers: { cookie } });
    expect(setUp.status).toBe(200);
    const page = await setUp.text();
    expect(page).toContain('Course tutor');

    const learnerOnUnset = await postLaunch(
      launchUrl,
      signedLaunch(consumer, {
        url: launchUrl,
        parameters: { resource_link_id: 'unset-link', user_id: 'moodle-learner-9', roles: 'Learner' },
      }),
    );
    expect(learnerOnUnset.status).toBe(200);
    expect(learnerOnUnset.text).toContain('has not set this activity up yet');

    const foreignOrigin = await fetch(`${server.baseUrl}${launched.location}`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' },
      body: `assistant_id=${assistantId}`,
    });
    expect(foreignOrigin.status).toBe(403);
    const bound = await fetch(`${server.baseUrl}${launched.location}`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', origin: server.baseUrl },
      body: `assistant_id=${assistantId}`,
    });
    expect(bound.status).toBe(200);
    expect(await bound.text()).toContain(`/chat/${assistantId}`);

    const learnerAfter = await postLaunch(
      launchUrl,
      signedLaunch(consumer, {
        url: launchUrl,
        parameters: { resource_link_id: 'unset-link', user_id: 'moodle-learner-9', roles: 'Learner' },
      }),
    );
    expect(learnerAfter.status).toBe(303);
    expect(learnerAfter.location).toBe(`/chat/${assistantId}`);
  });

  it('verifies the scheme and host the consumer saw behind a trusted proxy', async () => {
    const proxied = await startTestServer(dialect, { database: server.database, environment: { TRUST_PROXY: 'true' } });
    try {
      const publicUrl = 'https://merino.example.edu/lti/launch';
      const fields = learnerLaunch({}, { url: publicUrl });
      const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'merino.example.edu' };
      const launched = await postLaunch(`${proxied.baseUrl}/lti/launch`, fields, headers);
      expect(launched.status, launched.text).toBe(303);
      // Over HTTPS the cookie is meant for the course's frame: its own name, SameSite=None, Secure and partitioned.
      expect(launched.cookie).toMatch(
        /^merino_lti_session=mrs_[A-Za-z0-9_-]+; Path=\/; Max-Age=\d+; HttpOnly; SameSite=None; Secure; Partitioned$/,
      );
      const direct = await postLaunch(`${proxied.baseUrl}/lti/launch`, learnerLaunch({}, { url: publicUrl }));
      expect(direct.status).toBe(401);
    } finally {
      await proxied.close();
    }
  });

  it('lets the consumer frame the chat page of its launched sessions only', async () => {
    expect(
      (
        await request(server, 'PATCH', `/api/lti/consumers/${consumerId}`, {
          token: adminToken,
          body: { frame_origins: ['https://moodle.example.edu'] },
        })
      ).status,
    ).toBe(200);
    const launched = await postLaunch(launchUrl, learnerLaunch());
    const cookie = launched.cookie!.split(';')[0]!;
    const framable = await fetch(`${server.baseUrl}${launched.location}`, { headers: { cookie } });
    expect(framable.status).toBe(200);
    expect(framable.headers.get('content-security-policy')).toMatch(/frame-ancestors 'self' https:\/\/moodle\.example\.edu(;|$)/);
    const withoutSession = await fetch(`${server.baseUrl}${launched.location}`);
    expect(withoutSession.headers.get('content-security-policy')).toMatch(/frame-ancestors 'self'(;|$)/);
    // A learner's session reaches no teacher page.
    const activityId = (await request(server, 'GET', '/api/me', { headers: { cookie } })).body.lti.activity_id as number;
    expect((await fetch(`${server.baseUrl}/lti/activities/${activityId}`, { headers: { cookie } })).status).toBe(403);
  });
});
