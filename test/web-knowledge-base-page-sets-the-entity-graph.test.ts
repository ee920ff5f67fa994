/**
 * The knowledge-base page's "Build an entity graph" setting (docs/graph-search.md): its owner ticks
 * it and the knowledge base is saved with its graph on; without a small fast model the page says
 * the graph is not available and why, and offers no checkbox. At 375 px, with an axe scan.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, loginAsAdmin, request, startTestServer, type TestServer } from './support/test-server.js';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';

describe('the knowledge-base page sets the entity graph', () => {
  let server: TestServer;
  let browser: Browser;
  let token: string;
  let organizationId: number;
  let knowledgeBase: number;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    token = await loginAsAdmin(server);
    organizationId = (await request(server, 'GET', '/api/me', { token })).body.organization_id;
    knowledgeBase = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Paris' } })).body.id;
  });

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
  });

  it('turns the graph on with the checkbox when a small fast model is set, and says why not when none is', async () => {
    const setModel = (model: unknown) =>
      request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, { token, body: { small_fast_model: model } });
    expect((await setModel({ connector: 'openai', model: 'gpt-4o-mini' })).status).toBe(200);
    const { page, context, pageErrors } = await openPage(browser, { width: 375 });
    await logInThroughPage(page, server.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
    await page.goto(`${server.baseUrl}/knowledge-bases/${knowledgeBase}`);
    const checkbox = page.getByRole('checkbox', { name: 'Build an entity graph' });
    await checkbox.check();
    await expect
      .poll(async () => (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBase}`, { token })).body.graph.enabled)
      .toBe(true);
    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'knowledge-base-entity-graph-375');

    expect((await setModel(null)).status).toBe(200);
    const other = (await request(server, 'POST', '/api/knowledge-bases', { token, body: { name: 'Leaves' } })).body.id;
    await page.goto(`${server.baseUrl}/knowledge-bases/${other}`);
    await page.getByText('Entity graph: not available, because the organization names no small fast model').waitFor();
    expect(await page.getByRole('checkbox', { name: 'Build an entity graph' }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
