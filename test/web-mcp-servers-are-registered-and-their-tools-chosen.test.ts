/**
 * Proves in a real Chromium that an organization admin registers an MCP server on
 * /admin/mcp-servers (its header value never shown again) and changes it (an empty header value
 * keeps the stored one), that the studio's tools manager adds
 * an MCP tool entry by picking that server and ticking tools it lists (read from the SDK-built
 * test server), and that Save stores `{type: "mcp", config: {server_id, tools}}`. The pages pass
 * axe-core, at 375 px in dark mode without overflow too, and a learner is told the page is for
 * administrators.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeMcpServer, type FakeMcpServer } from './fakes/fake-mcp-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { possiblyUnset } from './support/possibly-unset.js';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  createUser,
  loginAsAdmin,
  request,
  startTestServer,
  type CreatedUser,
  type TestServer,
} from './support/test-server.js';

const SECRET = 'mcp-browser-secret-5b1e';

describe('MCP servers in the web app', () => {
  let server: TestServer;
  let browser: Browser;
  let mcp: FakeMcpServer;
  let learner: CreatedUser;

  beforeAll(async () => {
    mcp = await startFakeMcpServer();
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    learner = await createUser(server, await loginAsAdmin(server), { email: 'mcp-learner@school.test', role: 'learner' });
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
    await possiblyUnset(mcp)?.close();
  });

  it('registers a server, then adds its chosen tools to an assistant', async () => {
    const { page, context, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin', exact: true }).click();
    await page.getByRole('main').getByRole('link', { name: 'MCP servers', exact: true }).click();
    await page.waitForURL(/\/admin\/mcp-servers$/);
    await expectOneHeading(page, 'MCP servers');
    await page.getByText('No MCP server yet.').waitFor();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Grading');
    await page.getByRole('textbox', { name: 'Server URL' }).fill(`${mcp.url}?old`);
    await page.getByRole('textbox', { name: 'Header name' }).fill('Authorization');
    await page.getByLabel('Header value').fill(`Bearer ${SECRET}`);
    await page.getByRole('button', { name: 'Register server' }).click();
    await page.getByRole('button', { name: 'Remove Grading', exact: true }).waitFor();
    await page.getByText('1 header, value hidden').waitFor();
    expect(await page.content()).not.toContain(SECRET);

    // The name was unclear and the URL wrong: change both, leaving the secret header value as stored.
    await page.getByRole('button', { name: 'Edit Grading', exact: true }).click();
    await page.getByRole('heading', { name: 'Change Grading' }).waitFor();
    expect(await page.getByRole('textbox', { name: 'Header name' }).inputValue()).toBe('Authorization');
    expect(await page.getByLabel('Header value').inputValue()).toBe('');
    await page.getByText('Leave empty to keep the stored value.', { exact: false }).waitFor();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Grading tools');
    await page.getByRole('textbox', { name: 'Server URL' }).fill(mcp.url);
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('button', { name: 'Remove Grading tools' }).waitFor();
    await page.getByRole('heading', { name: 'Register a server' }).waitFor();
    expect(await page.getByRole('button', { name: 'Remove Grading', exact: true }).count()).toBe(0);
    await page.getByText('1 header, value hidden').waitFor();
    expect(await page.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('');
    mcp.headers.length = 0;
    await expectAccessible(page);
    await screenshot(page, 'admin-mcp-servers');

    await page.goto(`${server.baseUrl}/assistants/new`);
    await page.getByLabel('Multi-tool', { exact: true }).check();
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Grader');
    await page.getByRole('textbox', { name: 'System prompt', exact: true }).fill('You grade essays.');
    await page.getByRole('button', { name: 'Add tool' }).click();
    await page.getByRole('dialog', { name: 'Choose a tool' }).getByRole('button', { name: 'MCP server tools', exact: true }).click();
    const card = page.getByRole('article', { name: 'MCP server tools' });
    await card.getByLabel('MCP server').selectOption({ label: 'Grading tools' });
    const tools = card.getByRole('group', { name: 'Tools to offer' });
    await tools.getByLabel('add', { exact: true }).check();
    await tools.getByLabel('fail', { exact: true }).check();
    await expectAccessible(page);
    await screenshot(page, 'studio-mcp-tool-card');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/assistants\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').at(-1));
    const stored = await request(server, 'GET', `/api/assistants/${id}`, { token: await loginAsAdmin(server) });
    const serverId = (await request(server, 'GET', '/api/mcp-servers', { token: await loginAsAdmin(server) })).body.items[0].id;
    expect(stored.body.metadata.tools).toEqual([{ type: 'mcp', enabled: true, config: { server_id: serverId, tools: ['add', 'fail'] } }]);
    // Listing the tools after the change reached the new URL with the header value kept from registration.
    expect(mcp.headers.length).toBeGreaterThan(0);
    expect(mcp.headers.every((headers) => headers.authorization === `Bearer ${SECRET}`)).toBe(true);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('is accessible at phone width in dark mode, and tells a learner it is for admins', async () => {
    const { page, context } = await openPage(browser, { width: 375, colorScheme: 'dark' });
    await logInThroughPage(page, server.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto(`${server.baseUrl}/admin/mcp-servers`);
    await page.getByRole('textbox', { name: 'Server URL' }).waitFor();
    await expectAccessible(page);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await context.close();

    const refused = await openPage(browser);
    await logInThroughPage(refused.page, server.baseUrl, learner.email, learner.password);
    await refused.page.goto(`${server.baseUrl}/admin/mcp-servers`);
    await refused.page.getByText("Only the organization's administrators can register MCP servers.").waitFor();
    await refused.context.close();
  });
});
