/**
 * Proves in a real Chromium that the web app signs in and out through the HttpOnly session cookie:
 * an unauthenticated visit is sent to /login and back after logging in, a wrong password is told
 * without leaving the page, no script can read the session (document.cookie and localStorage hold
 * nothing of it), "Log out" revokes the session on the server, and a page on another origin that
 * posts to the API with the user's cookie is refused and changes nothing. Unknown app paths get
 * the app; unknown API paths stay JSON 404s. The login page passes axe-core at desktop and phone
 * widths, light and dark.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import {
  expectAccessible,
  expectOneHeading,
  launchBrowser,
  logInThroughPage,
  openAccountMenu,
  openPage,
  screenshot,
} from './support/browser.js';

/** A page on another origin of the same site (127.0.0.1, another port) that tries to act with the user's cookie. */
function attackerPage(target: string): string {
  return `<!doctype html><html><body><form id="logout" method="post" action="${target}/api/auth/logout"></form><script>
    fetch('${target}/api/assistants', { method: 'POST', mode: 'no-cors', credentials: 'include',
      headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ name: 'planted by another site' }) })
      .finally(() => { document.title = 'sent'; document.getElementById('logout').submit(); });
  </script></body></html>`;
}

async function startAttacker(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) =>
    response.writeHead(200, { 'content-type': 'text/html' }).end(attackerPage(target)),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('signing in through the web app', () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('sends an unauthenticated visit to /login and back to the page asked for', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await page.goto(`${server.baseUrl}/settings/api-keys`);
    await page.waitForURL(/\/login\?next=%2Fsettings%2Fapi-keys$/);
    await expectOneHeading(page, 'Log in to Merino');
    await page.getByLabel('Email').fill(ADMIN_EMAIL);
    await page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/settings\/api-keys$/);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('tells a wrong password at the form and stays on the login page', async () => {
    const { context, page } = await openPage(browser);
    await page.goto(`${server.baseUrl}/login`);
    await page.getByLabel('Email').fill(ADMIN_EMAIL);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('The email or password is not right.');
    expect(new URL(page.url()).pathname).toBe('/login');
    expect((await context.cookies()).some((cookie) => cookie.name === 'merino_session')).toBe(false);
    await context.close();
  });

  it('keeps the session where no script can read it, and "Log out" revokes it on the server', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
    const sessionCookie = (await context.cookies()).find((cookie) => cookie.name === 'merino_session');
    expect(sessionCookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    const visibleToScripts = await page.evaluate<{ cookies: string; stored: string }>(
      '({ cookies: document.cookie, stored: JSON.stringify({ ...localStorage }) })',
    );
    expect(visibleToScripts.cookies).not.toContain('merino_session');
    expect(visibleToScripts.cookies).not.toContain(sessionCookie!.value);
    expect(visibleToScripts.stored).not.toContain(sessionCookie!.value);
    const cookieHeader = { cookie: `merino_session=${sessionCookie!.value}` };
    expect((await request(server, 'GET', '/api/me', { headers: cookieHeader })).status).toBe(200);

    await openAccountMenu(page);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/login$/);
    expect((await context.cookies()).some((cookie) => cookie.name === 'merino_session')).toBe(false);
    expect((await request(server, 'GET', '/api/me', { headers: cookieHeader })).status).toBe(401);
    await page.goto(`${server.baseUrl}/assistants`);
    await page.waitForURL(/\/login\?next=%2Fassistants$/);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('refuses a change another origin sends with the cookie, and nothing changes', async () => {
    const adminToken = await loginAsAdmin(server);
    const before = (await request(server, 'GET', '/api/assistants?limit=200', { token: adminToken })).body.items.length as number;
    const attacker = await startAttacker(server.baseUrl);
    const { context, page } = await openPage(browser);
    try {
      await logInThroughPage(page, server.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
      const refused = page.waitForResponse((response) => response.url().endsWith('/api/auth/logout'));
      await page.goto(attacker.url);
      expect((await refused).status()).toBe(403);
      await page.waitForURL(/\/api\/auth\/logout$/);
      expect(await page.textContent('body')).toContain('csrf_rejected');
      const after = (await request(server, 'GET', '/api/assistants?limit=200', { token: adminToken })).body.items as { name: string }[];
      expect(after).toHaveLength(before);
      expect(after.map((assistant) => assistant.name)).not.toContain('planted by another site');
      // The session survived the cross-origin logout form: the app still opens signed in.
      await page.goto(`${server.baseUrl}/assistants`);
      await expect.poll(() => page.getByRole('button', { name: /^Account and settings:/ }).count()).toBe(1);
    } finally {
      await context.close();
      await attacker.close();
    }
  });

  it('serves the app at unknown app paths and keeps API 404s as JSON', async () => {
    const page = await fetch(`${server.baseUrl}/assistants/12345/anything`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self' 'sha256-[A-Za-z0-9+/=]+'/);
    const api = await request(server, 'GET', '/api/no-such-thing');
    expect(api.status).toBe(404);
    expect(api.body.error.code).toBe('route_not_found');
    const post = await request(server, 'POST', '/assistants');
    expect(post.status).toBe(404);
    expect(post.body.error.code).toBe('route_not_found');
  });

  it.each([
    { width: 1280, colorScheme: 'light' as const },
    { width: 375, colorScheme: 'light' as const },
    { width: 375, colorScheme: 'dark' as const },
  ])('shows an accessible login page at $width px, $colorScheme', async (options) => {
    const { context, page } = await openPage(browser, options);
    await page.goto(`${server.baseUrl}/login`);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    await expectAccessible(page);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, `login-${options.width}-${options.colorScheme}`);
    await context.close();
  });
});
