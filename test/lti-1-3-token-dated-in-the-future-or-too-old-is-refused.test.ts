/**
 * Proves on both stores that an LTI 1.3 id_token's `iat` is checked as README and docs/lti.md
 * say: a token the platform dated an hour in the future (past LTI_TOKEN_CLOCK_SKEW_SECONDS) is
 * refused with the 401 page and no session, and so is one issued longer ago than a login state
 * lives (LTI_LOGIN_STATE_SECONDS), even with an `exp` still ahead; a token dated within the skew
 * is accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listAuditEntries } from '../src/store/audit-log-repository.js';
import { loginThroughPlatform, submitLaunch } from './support/lti-platform-login.js';
import { startLti13World, type Lti13World } from './support/lti-1-3-world.js';
import { TEST_DIALECTS } from './support/test-databases.js';

const SKEW_SECONDS = 60;
const LOGIN_STATE_SECONDS = 600;

describe.each(TEST_DIALECTS)('LTI 1.3 token dates (%s)', (dialect) => {
  let world: Lti13World;

  beforeAll(async () => {
    world = await startLti13World(dialect, {
      LTI_TOKEN_CLOCK_SKEW_SECONDS: String(SKEW_SECONDS),
      LTI_LOGIN_STATE_SECONDS: String(LOGIN_STATE_SECONDS),
    });
  }, 120_000);

  afterAll(async () => {
    await world.close();
  });

  async function invalidTokenRefusals(): Promise<number> {
    const entries = await listAuditEntries(world.server.store.db, { action: 'lti.launch_refused' });
    return entries.filter((entry) => (JSON.parse(entry.details) as { reason: string }).reason === 'invalid_token').length;
  }

  async function launchWith(issuedIn: number, expiresIn: number) {
    const post = await loginThroughPlatform(world.server.baseUrl, world.platform, {
      issuedIn,
      expiresIn,
      custom: { assistant_id: String(world.assistantId) },
    });
    return submitLaunch(post);
  }

  it('refuses a token issued an hour in the future, with no session', async () => {
    const before = await invalidTokenRefusals();
    const refused = await launchWith(3_600, 7_200);
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('dated in the future');
    expect(refused.sessionCookie).toBeUndefined();
    expect(await invalidTokenRefusals()).toBe(before + 1);
  });

  it('refuses a token issued just past the skew in the future', async () => {
    const refused = await launchWith(SKEW_SECONDS + 30, 600);
    expect(refused.status).toBe(401);
    expect(refused.sessionCookie).toBeUndefined();
  });

  it('refuses a token issued longer ago than a login state lives, though its exp is ahead', async () => {
    const refused = await launchWith(-(LOGIN_STATE_SECONDS + SKEW_SECONDS + 60), 300);
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('has expired');
    expect(refused.sessionCookie).toBeUndefined();
  });

  it('accepts a token dated within the skew, ahead or behind', async () => {
    for (const issuedIn of [SKEW_SECONDS - 30, -(LOGIN_STATE_SECONDS - 60)]) {
      const accepted = await launchWith(issuedIn, 300);
      expect(accepted.status, accepted.text).toBe(303);
      expect(accepted.location).toBe(`/chat/${world.assistantId}`);
      expect(accepted.sessionCookie).toBeDefined();
    }
  });
});
