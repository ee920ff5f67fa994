/**
 * A burst of logins sent at once is held to the same limits as logins sent one after another: at
 * most LOGIN_FAILURES_PER_ACCOUNT_MAX wrong passwords are checked for one account, and at most
 * LOGIN_FAILURES_PER_ADDRESS_MAX for one client address, per window, however the attempts are
 * timed. Every other attempt gets 429 with Retry-After, the right password sent inside a burst
 * past the limit does not log in, and on PostgreSQL the burst is split between two server
 * processes sharing the store. An answer of 401 means the password was checked (scrypt ran), so
 * the 401s and the `auth.login_failed` audit entries count the guesses that were verified.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from './support/server-process.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const ACCOUNT_MAXIMUM = 10;
const ADDRESS_MAXIMUM = 20;
const LIMITS = {
  LOGIN_FAILURES_PER_ACCOUNT_MAX: String(ACCOUNT_MAXIMUM),
  LOGIN_FAILURES_PER_ADDRESS_MAX: String(ADDRESS_MAXIMUM),
  LOGIN_FAILURE_WINDOW_SECONDS: '3600',
  TRUST_PROXY: 'true',
};
const WRONG_PASSWORD = 'a-wrong-guess';

interface Attempt {
  email: string;
  password: string;
  address: string;
}

interface LoginAnswer {
  status: number;
  retryAfter: string | null;
  token: unknown;
}

describe.each(TEST_DIALECTS)('login bursts on %s', (dialect) => {
  let server: TestServer;
  let other: ServerProcess | undefined;
  let adminToken: string;

  beforeAll(async () => {
    server = await startTestServer(dialect, { environment: LIMITS });
    // On PostgreSQL the burst is shared with a second server process, as behind a load balancer.
    if (dialect === 'postgres') other = await startServerProcess(server.database, LIMITS);
    adminToken = await loginAsAdmin(server);
  });

  afterAll(async () => {
    await other?.kill();
    await possiblyUnset(server)?.close();
  });

  async function attempt({ email, password, address }: Attempt, index: number): Promise<LoginAnswer> {
    const targets = [server.baseUrl, other?.baseUrl].filter((url): url is string => url !== undefined);
    const response = await fetch(`${targets[index % targets.length]}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
      body: JSON.stringify({ email, password }),
    });
    const body = (await response.json()) as { token?: unknown };
    return { status: response.status, retryAfter: response.headers.get('retry-after'), token: body.token };
  }

  /** Sends every attempt at once, alternating between the servers; answers in the order sent. */
  async function burst(attempts: readonly Attempt[]): Promise<LoginAnswer[]> {
    return Promise.all(attempts.map(attempt));
  }

  /**
   * Sends the wrong guesses at once and the right password while they are still arriving, as soon
   * as `failuresFirst` of them have been answered 401. Sent together with the rest, the right
   * password could overtake them on a loaded machine and take one of the first places (a flake
   * seen when the suite ran faster), so it waits until the limit is provably used up.
   */
  async function burstEndingWithTheRightPassword(wrong: readonly Attempt[], right: Attempt, failuresFirst: number): Promise<LoginAnswer[]> {
    let failures = 0;
    let limitReached!: () => void;
    const reached = new Promise<void>((resolve) => (limitReached = resolve));
    const wrongAnswers = wrong.map(async (each, index) => {
      const answer = await attempt(each, index);
      if (answer.status === 401 && ++failures === failuresFirst) limitReached();
      return answer;
    });
    // Should the limit never be reached, the right password goes once every guess is answered.
    void Promise.all(wrongAnswers).then(() => limitReached());
    const rightAnswer = reached.then(() => attempt(right, wrong.length));
    return Promise.all([...wrongAnswers, rightAnswer]);
  }

  async function failedLoginsAudited(userId: number | null): Promise<number> {
    let query = server.store.db.selectFrom('audit_log').select('id').where('action', '=', 'auth.login_failed');
    query = userId === null ? query.where('target_id', 'is', null) : query.where('target_id', '=', String(userId));
    return (await query.execute()).length;
  }

  function expectHeldToTheLimit(answers: readonly LoginAnswer[], maximum: number): void {
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 401).length).toBe(maximum);
    expect(statuses.filter((status) => status === 429).length).toBe(answers.length - maximum);
    expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    for (const answer of answers.filter((each) => each.status === 429)) {
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
      expect(Number(answer.retryAfter)).toBeLessThanOrEqual(3600);
      expect(answer.token).toBeUndefined();
    }
  }

  for (const size of [50, 500]) {
    it(`checks at most ${ACCOUNT_MAXIMUM} passwords of one account in a burst of ${size}, and the right one last does not log in`, async () => {
      const user = await createUser(server, adminToken, { email: `burst-${size}-${dialect}@merino.test`, role: 'learner' });
      // Each guess from its own address, so only the account's limit can hold them.
      const addressOf = (index: number): string => `10.${size % 256}.${Math.floor(index / 250)}.${index % 250}`;
      const wrong: Attempt[] = Array.from({ length: size - 1 }, (_, index) => ({
        email: user.email,
        password: WRONG_PASSWORD,
        address: addressOf(index),
      }));
      const right = { email: user.email, password: user.password, address: addressOf(size - 1) };
      const answers = await burstEndingWithTheRightPassword(wrong, right, ACCOUNT_MAXIMUM);
      expectHeldToTheLimit(answers, ACCOUNT_MAXIMUM);
      expect(answers.at(-1)!.status).toBe(429);
      expect(await failedLoginsAudited(user.id)).toBe(ACCOUNT_MAXIMUM);
      // The burst is over, and the lock-out still holds for the right password.
      const after = await request(server, 'POST', '/api/auth/login', {
        body: { email: user.email, password: user.password },
        headers: { 'x-forwarded-for': '192.0.2.200' },
      });
      expect(after.status).toBe(429);
    });

    it(`checks at most ${ADDRESS_MAXIMUM} passwords from one address in a burst of ${size} over many accounts`, async () => {
      const user = await createUser(server, adminToken, { email: `address-${size}-${dialect}@merino.test`, role: 'learner' });
      const address = `198.51.100.${size % 256}`;
      // Unknown accounts (each guessed once, so no account limit applies), then the real one last.
      const wrong: Attempt[] = Array.from({ length: size - 1 }, (_, index) => ({
        email: `nobody-${size}-${index}-${dialect}@merino.test`,
        password: WRONG_PASSWORD,
        address,
      }));
      const unknownBefore = await failedLoginsAudited(null);
      const answers = await burstEndingWithTheRightPassword(
        wrong,
        { email: user.email, password: user.password, address },
        ADDRESS_MAXIMUM,
      );
      expectHeldToTheLimit(answers, ADDRESS_MAXIMUM);
      expect(answers.at(-1)!.status).toBe(429);
      expect((await failedLoginsAudited(null)) - unknownBefore).toBe(ADDRESS_MAXIMUM);
      // Another address is not held by this one's lock-out.
      const elsewhere = await request(server, 'POST', '/api/auth/login', {
        body: { email: user.email, password: user.password },
        headers: { 'x-forwarded-for': '192.0.2.201' },
      });
      expect(elsewhere.status).toBe(200);
    });
  }

  it('lets a burst of right passwords in without counting them as failures of the address', async () => {
    const user = await createUser(server, adminToken, { email: `rightful-${dialect}@merino.test`, role: 'learner' });
    const address = '203.0.113.77';
    const answers = await burst(
      Array.from({ length: ADDRESS_MAXIMUM + 5 }, () => ({ email: user.email, password: user.password, address })),
    );
    // Attempts in flight hold a place in the window, so some of a burst may be asked to wait, but
    // none is a failure, and once they end the address's count is back to nothing.
    expect(answers.filter((answer) => answer.status !== 200 && answer.status !== 429)).toEqual([]);
    expect(answers.some((answer) => answer.status === 200)).toBe(true);
    const later = await burst(
      Array.from({ length: ADDRESS_MAXIMUM }, (_, index) => ({
        email: `later-${index}-${dialect}@merino.test`,
        password: WRONG_PASSWORD,
        address,
      })),
    );
    expect(later.map((answer) => answer.status)).toEqual(Array.from({ length: ADDRESS_MAXIMUM }, () => 401));
  });
});
