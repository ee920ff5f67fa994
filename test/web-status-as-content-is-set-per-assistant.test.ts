/**
 * The assistant setting `status_as_content` (tool steps written into the answer text, for clients
 * that show only content) is a checkbox in both the classic and the multi-tool form: ticked and
 * saved it is stored in the metadata, unticked it is stored as false.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { launchBrowser, logInThroughPage, openPage } from './support/browser.js';
import { possiblyUnset } from './support/possibly-unset.js';

const LABEL = 'Tool steps in the answer text';

describe('the status-as-content setting', () => {
  let server: TestServer;
  let browser: Browser;
  let creator: CreatedUser;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    creator = await createUser(server, await loginAsAdmin(server), { email: 'creator@merino.test', role: 'creator' });
  });

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(server)?.close();
  });

  it.each([
    { kind: 'classic', body: { name: 'Essay coach', prompt_template: '{user_input}' } },
    {
      kind: 'multi-tool',
      body: {
        name: 'Field trip planner',
        prompt_template: '{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          prompt_processor: 'multi_augment',
          tools: [{ type: 'weather', enabled: true, config: {} }],
        },
      },
    },
  ])('is a checkbox of the $kind form', async ({ body }) => {
    const created = await request(server, 'POST', '/api/assistants', { token: creator.token, body });
    expect(created.status).toBe(201);
    const stored = async () =>
      (await request(server, 'GET', `/api/assistants/${created.body.id}`, { token: creator.token })).body.metadata.status_as_content;
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, creator.email, creator.password);
    await page.goto(`${server.baseUrl}/assistants/${created.body.id}`);
    const checkbox = page.getByRole('checkbox', { name: LABEL });
    expect(await checkbox.isChecked()).toBe(false);
    await checkbox.check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(stored).toBe(true);
    await page.reload();
    expect(await page.getByRole('checkbox', { name: LABEL }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: LABEL }).uncheck();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(stored).toBe(false);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
