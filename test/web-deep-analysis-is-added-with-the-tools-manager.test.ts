/**
 * Proves in a real Chromium that the studio's tools manager adds deep_analysis: it is offered among
 * the "Functions the model may call" (not among the context tools), its card shows its bounds with
 * plain labels, the shared knowledge-base choice fills its collections, the server's live check
 * names a bound past its maximum, and Save stores the entry with the chosen config (read back
 * through the API). The form passes axe-core.
 */
import { describe, expect, it } from 'vitest';
import { loginAsAdmin, request } from './support/test-server.js';
import { expectAccessible, expectOneHeading, openPage } from './support/browser.js';
import { startMultiToolForm, toolsManagerSuite } from './support/studio-suite.js';

describe('adding deep_analysis with the tools manager', () => {
  const studio = toolsManagerSuite('Ecology course');

  it('offers it as a function, labels its bounds, checks them live and saves its config', async () => {
    const { context, page, pageErrors } = await openPage(studio.browser);
    await startMultiToolForm(page, studio.server.baseUrl);
    await expectOneHeading(page, 'New assistant');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Ecology analyst');
    await page.getByRole('textbox', { name: 'System prompt', exact: true }).fill('You teach ecology.');
    await page.getByRole('textbox', { name: 'Prompt template', exact: true }).fill('{user_input}');

    await page.getByRole('button', { name: 'Add tool' }).click();
    const dialog = page.getByRole('dialog', { name: 'Choose a tool' });
    const functions = dialog.getByRole('region', { name: 'Functions the model may call' });
    await functions.getByRole('button', { name: 'Deep analysis', exact: true }).waitFor();
    expect(
      await dialog.getByRole('region', { name: 'Context tools' }).getByRole('button', { name: 'Deep analysis', exact: true }).count(),
    ).toBe(0);
    await functions.getByRole('button', { name: 'Deep analysis', exact: true }).click();
    const card = page.getByRole('article', { name: 'Deep analysis' });
    await card.getByText('Function the model may call').waitFor();
    await page.getByRole('group', { name: 'Knowledge bases of this assistant' }).getByLabel('Ecology course').check();

    const passages = card.getByLabel('Passages to gather');
    await passages.fill('20000');
    await expect.poll(() => card.getByRole('alert').allInnerTexts()).toEqual(['"passages" must be <= 10000']);
    await passages.fill('60');
    await expect.poll(() => card.getByRole('alert').count()).toBe(0);
    await card.getByLabel('Passages per summary').fill('6');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/assistants\/\d+$/);
    const id = Number(/\/assistants\/(\d+)$/.exec(page.url())?.[1]);
    const stored = await request(studio.server, 'GET', `/api/assistants/${id}`, { token: await loginAsAdmin(studio.server) });
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body.metadata.tools).toEqual([
      {
        type: 'deep_analysis',
        enabled: true,
        config: expect.objectContaining({ collections: [String(studio.knowledgeBaseId)], passages: 60, batch_size: 6 }),
      },
    ]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
