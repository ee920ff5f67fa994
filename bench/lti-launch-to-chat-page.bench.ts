/**
 * How long a learner waits from clicking an LTI 1.1 activity to seeing the chat: over HTTP, the
 * signed launch (signature check, nonce insert, user, link, session, launch record) plus the chat
 * page it redirects to, with the session cookie, on SQLite and on PostgreSQL; and in Chromium, from
 * submitting the course's launch form to the chat page's heading being shown. Prints figures;
 * never passes or fails on them.
 *
 *   npm run bench -- bench/lti-launch-to-chat-page.bench.ts      (LAUNCHES=300 CONCURRENCY=4 BROWSER_LAUNCHES=10)
 */
import { describe, expect, it } from 'vitest';
import { postLaunch, signedLaunch, type ConsumerCredentials } from '../test/fakes/lti-consumer.js';
import { launchBrowser, openPage } from '../test/support/browser.js';
import { TEST_DIALECTS, type Dialect } from '../test/support/test-databases.js';
import { loginAsAdmin, request, startTestServer, type TestServer } from '../test/support/test-server.js';
import { ascending, measure, percentile, printFigures, type Figures } from './support/measure.js';

const LAUNCHES = Number(process.env.LAUNCHES ?? 300);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 4);
const BROWSER_LAUNCHES = Number(process.env.BROWSER_LAUNCHES ?? 10);

async function world(dialect: Dialect): Promise<{ server: TestServer; consumer: ConsumerCredentials; assistantId: number }> {
  const server = await startTestServer(dialect, { environment: { LOG_LEVEL: 'warn', LTI_LAUNCHES_PER_ADDRESS_MAX: '1000000' } });
  const adminToken = await loginAsAdmin(server);
  const created = await request(server, 'POST', '/api/assistants', {
    token: adminToken,
    body: { name: 'Bench tutor', metadata: { connector: 'bypass', llm: 'debug-bypass' } },
  });
  await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: adminToken, body: { published: true } });
  const made = await request(server, 'POST', '/api/lti/consumers', { token: adminToken, body: { name: 'Bench Moodle' } });
  return { server, consumer: { key: made.body.consumer_key, secret: made.body.consumer_secret }, assistantId: created.body.id };
}

async function httpFigures(dialect: Dialect): Promise<Figures[]> {
  const { server, consumer, assistantId } = await world(dialect);
  try {
    const url = `${server.baseUrl}/lti/launch`;
    const launch = (index: number) =>
      signedLaunch(consumer, {
        url,
        parameters: {
          resource_link_id: 'bench-link',
          user_id: `learner-${index % 50}`,
          roles: 'Learner',
          custom_assistant_id: String(assistantId),
        },
      });
    return [
      await measure(`${dialect}: launch only (POST /lti/launch → 303)`, LAUNCHES, CONCURRENCY, async (index) => {
        const launched = await postLaunch(url, launch(index));
        return launched.status === 303 ? 200 : launched.status;
      }),
      await measure(`${dialect}: launch + chat page + /api/me`, LAUNCHES, CONCURRENCY, async (index) => {
        const launched = await postLaunch(url, launch(index + LAUNCHES));
        if (launched.status !== 303) return launched.status;
        const cookie = launched.cookie!.split(';')[0]!;
        const page = await fetch(`${server.baseUrl}${launched.location}`, { headers: { cookie } });
        await page.text();
        const me = await fetch(`${server.baseUrl}/api/me`, { headers: { cookie } });
        await me.text();
        return Math.max(page.status, me.status);
      }),
    ];
  } finally {
    await server.close();
  }
}

describe('LTI launch to chat page', () => {
  it('prints HTTP figures on each store', async () => {
    const rows: Figures[] = [];
    for (const dialect of TEST_DIALECTS) rows.push(...(await httpFigures(dialect)));
    printFigures(`LTI 1.1 launch to chat page over HTTP (${LAUNCHES} launches each, ${CONCURRENCY} at once)`, rows);
    expect(rows.every((row) => row.requests > 0)).toBe(true);
  });

  it('prints the time a browser takes from the launch form to the chat heading', async () => {
    const { server, consumer, assistantId } = await world('sqlite');
    const browser = await launchBrowser();
    try {
      const merino = server.baseUrl.replace('127.0.0.1', 'localhost');
      const times: number[] = [];
      for (let index = 0; index < BROWSER_LAUNCHES; index += 1) {
        const fields = signedLaunch(consumer, {
          url: `${merino}/lti/launch`,
          parameters: {
            resource_link_id: 'bench-browser',
            user_id: `browser-learner-${index}`,
            roles: 'Learner',
            custom_assistant_id: String(assistantId),
          },
        });
        const inputs = Object.entries(fields)
          .map(([name, value]) => `<input type="hidden" name="${name}" value="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`)
          .join('');
        const { page, context } = await openPage(browser);
        await page.setContent(`<form method="post" action="${merino}/lti/launch">${inputs}<button>Open</button></form>`);
        const started = performance.now();
        await page.getByRole('button', { name: 'Open' }).click();
        await page.getByRole('heading', { level: 1, name: 'Bench tutor' }).waitFor({ timeout: 30_000 });
        times.push(performance.now() - started);
        await context.close();
      }
      const sorted = ascending(times);
      console.log(
        `\nLTI 1.1 launch form → chat heading shown, Chromium, SQLite (${BROWSER_LAUNCHES} launches): p50 ${percentile(sorted, 0.5).toFixed(0)} ms, p95 ${percentile(sorted, 0.95).toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms`,
      );
      expect(times).toHaveLength(BROWSER_LAUNCHES);
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
