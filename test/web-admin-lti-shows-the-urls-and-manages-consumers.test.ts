/**
 * Proves in a real Chromium that /admin/lti gives an organization admin what a Moodle admin must
 * paste: the launch, login and JWKS URLs and the redirect URI, each with a Copy button that puts
 * exactly that URL on the clipboard; that it creates an LTI 1.1 consumer whose secret is shown
 * once (and works for a signed launch), registers an LTI 1.3 platform, and revokes a consumer
 * after confirming; that a learner gets the refusal as a message. Accessible, at 375 px and dark.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postLaunch, signedLaunch } from './fakes/lti-consumer.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createUser, loginAsAdmin, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

describe('the LTI admin page', () => {
  let server: TestServer;
  let browser: Browser;
  let admin: CreatedUser;
  let learner: CreatedUser;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    const systemAdmin = await loginAsAdmin(server);
    admin = await createUser(server, systemAdmin, { email: 'lti-admin@school.test', role: 'admin' });
    learner = await createUser(server, systemAdmin, { email: 'lti-learner@school.test', role: 'learner' });
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
  });

  it('shows the URLs with copy buttons, creates a consumer shown once, registers a platform and revokes', async () => {
    const { page, context, pageErrors } = await openPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.baseUrl });
    await logInThroughPage(page, server.baseUrl, admin.email, admin.password);
    // The admin reaches the page from the main navigation's Admin page (the server's administer capability).
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin', exact: true }).click();
    await page.getByRole('main').getByRole('link', { name: 'LTI', exact: true }).click();
    await page.waitForURL(/\/admin\/lti$/);
    await expectOneHeading(page, 'LTI');
    const launchUrl = page.getByRole('textbox', { name: 'Launch URL (LTI 1.1 tool URL)' });
    await expect.poll(() => launchUrl.inputValue()).toBe(`${server.baseUrl}/lti/launch`);
    expect(await page.getByRole('textbox', { name: 'Login URL (LTI 1.3 initiate login URL)' }).inputValue()).toBe(
      `${server.baseUrl}/lti/1.3/login`,
    );
    expect(await page.getByRole('textbox', { name: 'JWKS URL (LTI 1.3 public keyset URL)' }).inputValue()).toBe(
      `${server.baseUrl}/lti/1.3/jwks`,
    );
    expect(await page.getByRole('textbox', { name: /^Redirect URI/ }).inputValue()).toBe(`${server.baseUrl}/lti/1.3/launch`);
    await page.getByRole('button', { name: 'Copy JWKS URL (LTI 1.3 public keyset URL)' }).click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe(`${server.baseUrl}/lti/1.3/jwks`);

    await page.getByRole('textbox', { name: 'Name' }).fill('Moodle of Science');
    await page.getByRole('textbox', { name: 'Origins allowed to frame Merino' }).first().fill('https://moodle.example.edu');
    await page.getByRole('button', { name: 'Create consumer' }).click();
    await page.getByRole('heading', { name: 'Consumer "Moodle of Science" created' }).waitFor();
    const key = await page.getByRole('textbox', { name: 'Consumer key' }).inputValue();
    const secret = await page.getByRole('textbox', { name: 'Shared secret' }).inputValue();
    const url = `${server.baseUrl}/lti/launch`;
    const launched = await postLaunch(
      url,
      signedLaunch({ key, secret }, { url, parameters: { resource_link_id: 'r', user_id: 'u', roles: 'Learner' } }),
    );
    expect(launched.status).toBe(200);
    await expectAccessible(page);
    await screenshot(page, 'admin-lti-consumer-created');
    await page.getByRole('button', { name: 'Done' }).click();
    await expect.poll(() => page.getByRole('textbox', { name: 'Shared secret' }).count()).toBe(0);

    await page.getByRole('textbox', { name: 'Issuer (platform ID)' }).fill('https://moodle.example.edu');
    await page.getByRole('textbox', { name: 'Client ID' }).fill('client-1');
    await page.getByRole('textbox', { name: 'Deployment IDs' }).fill('1');
    await page.getByRole('textbox', { name: 'Authentication request URL' }).fill('https://moodle.example.edu/mod/lti/auth.php');
    await page.getByRole('textbox', { name: 'Access token URL' }).fill('https://moodle.example.edu/mod/lti/token.php');
    await page.getByRole('textbox', { name: "Platform's public keyset URL" }).fill('https://moodle.example.edu/mod/lti/certs.php');
    await page.getByRole('button', { name: 'Register platform' }).click();
    await page.getByRole('button', { name: 'Delete https://moodle.example.edu' }).waitFor();

    await page.getByRole('button', { name: 'Revoke Moodle of Science' }).click();
    await page.getByRole('dialog', { name: 'Revoke this consumer?' }).getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => page.getByRole('button', { name: 'Revoke Moodle of Science' }).count()).toBe(0);
    expect(
      (await postLaunch(url, signedLaunch({ key, secret }, { url, parameters: { resource_link_id: 'r', user_id: 'u' } }))).status,
    ).toBe(401);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('is accessible at phone width in dark mode, and tells a learner it is for admins', async () => {
    const { page, context } = await openPage(browser, { width: 375, colorScheme: 'dark' });
    await logInThroughPage(page, server.baseUrl, admin.email, admin.password);
    await page.goto(`${server.baseUrl}/admin/lti`);
    await page.getByRole('textbox', { name: 'Launch URL (LTI 1.1 tool URL)' }).waitFor();
    await expectAccessible(page);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await screenshot(page, 'admin-lti-375-dark');
    await context.close();

    const refused = await openPage(browser);
    await logInThroughPage(refused.page, server.baseUrl, learner.email, learner.password);
    await refused.page.goto(`${server.baseUrl}/admin/lti`);
    await refused.page.getByText("Only your organization's administrators can manage LTI.").waitFor();
    expect(await refused.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin', exact: true }).count()).toBe(0);
    await refused.context.close();
  });
});
