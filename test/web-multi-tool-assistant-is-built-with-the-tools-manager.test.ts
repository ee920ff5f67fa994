/**
 * Proves in a real Chromium that a multi-tool assistant is built with the tools manager on
 * /assistants/new: "Add tool" offers context tools and "Functions the model may call", pickers show
 * the teacher's knowledge bases and rubrics by name and store their ids, the placeholder manager
 * warns of a template placeholder nothing fills and of a context tool the template lacks and stops
 * once they are fixed (a placeholder inserted at the cursor), a card moves with the keyboard and
 * another by drag and drop, a tool is disabled, the server's live check shows its error at the
 * field, and Save stores the tools in the chosen order with the chosen configs (read back through
 * the API) and opens the assistant's page. There, the assistant picker lists the server's candidates, the assistant itself
 * disabled with the reason. "Add tool" opened again before the close event of the last choice
 * arrives stays open. The form with cards passes axe-core at desktop width in light mode
 * and at 375 px in dark mode, without overflow.
 */
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { loginAsAdmin, request } from './support/test-server.js';
import { expectAccessible, expectOneHeading, openPage, screenshot } from './support/browser.js';
import { startMultiToolForm, toolsManagerSuite } from './support/studio-suite.js';

const RUBRIC = {
  rubricId: 'lab-report-2026',
  title: 'Lab report',
  description: 'Biology lab reports',
  criteria: [
    {
      name: 'Method',
      description: 'How the experiment was run',
      weight: 1,
      levels: [
        { score: 4, label: 'Clear', description: 'Every step can be repeated' },
        { score: 0, label: 'Missing', description: 'No method' },
      ],
    },
  ],
  scoringType: 'points',
  maxScore: 4,
};

async function addTool(page: Page, displayName: string): Promise<void> {
  await page.getByRole('button', { name: 'Add tool' }).click();
  const dialog = page.getByRole('dialog', { name: 'Choose a tool' });
  await dialog.getByRole('button', { name: displayName, exact: true }).click();
  await expect.poll(() => dialog.isVisible()).toBe(false);
}

/** Waits until the element's box is the same over two animation frames a little apart. */
async function waitUntilStill(locator: Locator): Promise<void> {
  const box = async (): Promise<string> => {
    await locator.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50))))');
    return JSON.stringify(await locator.boundingBox());
  };
  let last = await box();
  await expect
    .poll(async () => {
      const now = await box();
      const still = now === last;
      last = now;
      return still;
    })
    .toBe(true);
}

async function cardTitles(page: Page): Promise<string[]> {
  return page.locator('article h3').allInnerTexts();
}

describe('building a multi-tool assistant with the tools manager', () => {
  const studio = toolsManagerSuite('Plant biology notes');

  beforeAll(async () => {
    const rubric = await request(studio.server, 'POST', '/api/rubrics', { token: studio.adminToken, body: RUBRIC });
    expect(rubric.status, rubric.text).toBe(201);
  });

  it('adds, configures, reorders and disables tools, warns about placeholders, and saves them in order', async () => {
    const { context, page, pageErrors } = await openPage(studio.browser);
    await startMultiToolForm(page, studio.server.baseUrl);
    await expectOneHeading(page, 'New assistant');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Plant lab helper');
    await page.getByRole('textbox', { name: 'System prompt', exact: true }).fill('You help with plant biology lab reports.');
    const template = page.getByRole('textbox', { name: 'Prompt template', exact: true });
    await template.fill('Context: {context}\nNotes: {notes}\nQuestion: {user_input}');

    await addTool(page, 'Knowledge base passages');
    const knowledge = page.getByRole('article', { name: 'Knowledge base passages' });
    await expect.poll(() => knowledge.getByText('Fills {context}').isVisible()).toBe(true);
    await page.getByRole('group', { name: 'Knowledge bases of this assistant' }).getByLabel('Plant biology notes').check();

    await addTool(page, 'Assessment rubric');
    const rubric = page.getByRole('article', { name: 'Assessment rubric' });
    await rubric.getByLabel('Rubric', { exact: true }).selectOption({ label: 'Lab report' });

    await page.getByRole('button', { name: 'Add tool' }).click();
    const dialog = page.getByRole('dialog', { name: 'Choose a tool' });
    const functions = dialog.getByRole('region', { name: 'Functions the model may call' });
    await screenshot(page, 'web-tools-manager-selector');
    await functions.getByRole('button', { name: 'Weather', exact: true }).waitFor();
    expect(await dialog.getByRole('region', { name: 'Context tools' }).getByRole('button', { name: 'Weather', exact: true }).count()).toBe(
      0,
    );
    await functions.getByRole('button', { name: 'Weather', exact: true }).click();
    const weather = page.getByRole('article', { name: 'Weather' });
    await weather.getByText('Function the model may call').waitFor();
    expect(await cardTitles(page)).toEqual(['Knowledge base passages', 'Assessment rubric', 'Weather']);

    const warnings = page.getByRole('status').filter({ hasText: /fills|no enabled tool/ });
    await expect
      .poll(() => warnings.allInnerTexts())
      .toEqual([
        '{notes} is in the template, but no enabled tool fills it; the model would read it as written.',
        'Assessment rubric fills {rubric}, which the template does not use, so its output is lost.',
      ]);
    await template.fill('Context: {context}\nRubric: \nQuestion: {user_input}');
    await expect.poll(() => warnings.count()).toBe(1);
    // The cursor to the end of the "Rubric: " line, where the placeholder goes.
    await template.focus();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('End');
    await page.getByRole('button', { name: 'Insert {rubric}' }).click();
    expect(await template.inputValue()).toBe('Context: {context}\nRubric: {rubric}\nQuestion: {user_input}');
    await expect.poll(() => warnings.count()).toBe(0);
    await page.getByText('Every placeholder in the template is filled').waitFor();

    // Keyboard reordering: the focus stays on the button that moved the card, and the move is announced.
    await weather.getByRole('button', { name: 'Move up' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => cardTitles(page)).toEqual(['Knowledge base passages', 'Weather', 'Assessment rubric']);
    await page.keyboard.press('Enter');
    await expect.poll(() => cardTitles(page)).toEqual(['Weather', 'Knowledge base passages', 'Assessment rubric']);
    expect(await page.getByText('Weather moved to position 1 of 3.').count()).toBe(1);
    expect(await page.evaluate('document.activeElement.textContent.trim()')).toBe('Move down');

    await weather.getByLabel('Enabled').uncheck();
    await weather.getByText('Disabled', { exact: true }).waitFor();

    // The server's live check names a field; its message appears there and goes when it is fixed.
    const passages = knowledge.getByLabel('Passages to retrieve');
    await passages.fill('50');
    await expect.poll(() => knowledge.getByRole('alert').allInnerTexts()).toEqual(['"top_k" must be <= 20']);
    expect(await passages.getAttribute('aria-invalid')).toBe('true');
    await passages.fill('4');
    await expect.poll(() => knowledge.getByRole('alert').count()).toBe(0);

    await expectAccessible(page);
    await screenshot(page, 'web-tools-manager-desktop-light');

    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/assistants\/\d+$/);
    const id = Number(/\/assistants\/(\d+)$/.exec(page.url())?.[1]);
    await expectOneHeading(page, 'Plant lab helper');
    const stored = await request(studio.server, 'GET', `/api/assistants/${id}`, { token: await loginAsAdmin(studio.server) });
    expect(stored.status, stored.text).toBe(200);
    expect(stored.body.prompt_template).toBe('Context: {context}\nRubric: {rubric}\nQuestion: {user_input}');
    expect(stored.body.metadata.tools).toEqual([
      { type: 'weather', enabled: false, config: {} },
      {
        type: 'simple_rag',
        enabled: true,
        config: { collections: [String(studio.knowledgeBaseId)], top_k: 4, threshold: 0, query_mode: 'last_message' },
      },
      { type: 'rubric_rag', enabled: true, config: { rubric_id: 'lab-report-2026', format: 'markdown' } },
    ]);

    // Saved, the assistant has an id: target assistants now come from the server's candidates, itself refused with its reason.
    await addTool(page, 'Assistant');
    const target = page.getByRole('article', { name: 'Assistant' }).getByLabel('Assistant to call');
    const itself = target.locator('option', { hasText: 'Plant lab helper (unavailable: this assistant itself)' });
    await expect.poll(() => itself.count()).toBe(1);
    expect(await itself.isDisabled()).toBe(true);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('keeps "Add tool" open when it is opened again before the close event of the last choice arrives', async () => {
    const { context, page, pageErrors } = await openPage(studio.browser);
    await startMultiToolForm(page, studio.server.baseUrl);
    await page.getByRole('button', { name: 'Add tool' }).click();
    await page.getByRole('dialog', { name: 'Choose a tool' }).waitFor();
    // In one task: choose Weather (the dialog closes; its close event is only queued), then open
    // the dialog again, as a busy browser may let a quick second click do before that event arrives.
    const reopened = await page.evaluate(`(async () => {
      const dialog = document.querySelector('dialog[open]');
      const byText = (text) => [...document.querySelectorAll('button')].find((button) => button.textContent.trim() === text);
      const settle = async (isOpen) => { for (let turn = 0; turn < 100 && dialog.open !== isOpen; turn++) await Promise.resolve(); return dialog.open === isOpen; };
      [...dialog.querySelectorAll('button.choice')].find((button) => button.querySelector('.name').textContent === 'Weather').click();
      const closed = await settle(false);
      byText('Add tool').click();
      return closed && (await settle(true));
    })()`);
    expect(reopened).toBe(true);
    await page.getByRole('article', { name: 'Weather' }).waitFor();
    // Whatever the stale close event does, it arrives within a few frames; the dialog must still be open after them.
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 100))))');
    expect(await page.getByRole('dialog', { name: 'Choose a tool' }).isVisible()).toBe(true);
    await page.getByRole('dialog', { name: 'Choose a tool' }).getByRole('button', { name: 'Assessment rubric', exact: true }).click();
    expect(await cardTitles(page)).toEqual(['Weather', 'Assessment rubric']);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('fits a phone in dark mode, explains the one-level rule of assistant tools, and passes axe-core', async () => {
    const { context, page, pageErrors } = await openPage(studio.browser, { width: 375, colorScheme: 'dark' });
    await startMultiToolForm(page, studio.server.baseUrl);
    await page.getByRole('textbox', { name: 'Prompt template', exact: true }).fill('{file}\n{user_input}');
    await addTool(page, 'Weather');
    await addTool(page, 'Single file');
    // Drag and drop reorders too: the file card's handle dropped on the weather card puts it first.
    await page.evaluate("document.querySelector('article').scrollIntoView({ block: 'start' })");
    // The drop point is worked out before the drag starts: a card still filling in (its file list
    // arrives from the API) would move the target from under it, so the cards must be still first.
    await waitUntilStill(page.getByRole('article', { name: 'Single file' }));
    await waitUntilStill(page.getByRole('article', { name: 'Weather' }));
    await page
      .getByRole('article', { name: 'Single file' })
      .locator('.handle')
      .dragTo(page.getByRole('article', { name: 'Weather' }), { targetPosition: { x: 150, y: 12 } });
    await expect.poll(() => cardTitles(page)).toEqual(['Single file', 'Weather']);
    await addTool(page, 'Assistant');
    const assistantCard = page.getByRole('article', { name: 'Assistant' });
    await assistantCard.getByText('Calls go one level deep').waitFor();
    await expect.poll(() => assistantCard.getByLabel('Assistant to call').locator('option').count()).toBeGreaterThan(0);
    expect(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth')).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'web-tools-manager-phone-dark');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
