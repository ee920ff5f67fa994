/**
 * Proves in a real Chromium that a teacher builds a rubric on the grid of /rubrics/new (3
 * criteria, 4 levels, with "Add criterion" and "Add level"), sees the weight-total error that
 * percentage scoring asks for, sees the live preview that is exactly the evaluation document
 * rubric_rag renders for the saved rubric, reorders criteria and levels with the keyboard
 * buttons, exports LAMB JSON and re-imports it identically; that "Use in an assistant" lands in
 * the studio with the rubric selected; that a colleague sees a shared rubric read-only; and that a
 * learner and a teacher of another organization get the not-found state; and that Delete asks
 * first. axe-core at 1280 and 375 px.
 */
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RubricDocument } from '../src/rubrics/rubric-document.js';
import { evaluationMarkdown } from '../src/rubrics/rubric-rendering.js';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';

const VIEW_FIELDS = ['visibility', 'owner', 'organization_id', 'is_mine', 'created_at', 'updated_at'];
const LEVELS = [
  { label: 'Exemplary', score: '4' },
  { label: 'Proficient', score: '3' },
  { label: 'Developing', score: '2' },
  { label: 'Beginning', score: '1' },
];
const CRITERIA = [
  { name: 'Hypothesis', description: 'What is tested', weight: '30' },
  { name: 'Method', description: 'How it is tested', weight: '30' },
  { name: 'Analysis', description: 'What the data say', weight: '30' },
];

function documentOf(view: Record<string, unknown>): RubricDocument {
  return Object.fromEntries(Object.entries(view).filter(([key]) => !VIEW_FIELDS.includes(key))) as unknown as RubricDocument;
}

/** The document without what an import always replaces: the rubricId and the timestamps. */
function comparable(document: RubricDocument): Record<string, unknown> {
  const { createdAt: _createdAt, modifiedAt: _modifiedAt, ...metadata } = document.metadata;
  return { ...document, rubricId: undefined, metadata };
}

describe('the rubric editor', () => {
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let colleague: CreatedUser;
  let learner: CreatedUser;
  let outsider: CreatedUser;
  let rubricId = '';

  const readRubric = async (user: CreatedUser, id: string) => {
    const response = await request(server, 'GET', `/api/rubrics/${id}`, { token: user.token });
    expect(response.status, response.text).toBe(200);
    return response.body as Record<string, unknown>;
  };

  async function signedIn(user: CreatedUser, width = 1280): Promise<{ page: Page; close: () => Promise<void>; pageErrors: string[] }> {
    const { context, page, pageErrors } = await openPage(browser, { width });
    await logInThroughPage(page, server.baseUrl, user.email, user.password);
    return { page, pageErrors, close: () => context.close() };
  }

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: 'teacher@merino.test', role: 'creator' });
    colleague = await createUser(server, adminToken, { email: 'colleague@merino.test', role: 'creator' });
    learner = await createUser(server, adminToken, { email: 'learner@merino.test', role: 'learner' });
    const elsewhere = await insertOrganization(server.store.db, 'elsewhere', 'Elsewhere');
    outsider = await createUser(server, adminToken, { email: 'outsider@merino.test', role: 'creator', organization_id: elsewhere });
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('builds a rubric with 3 criteria and 4 levels, shows the weight error, and previews what rubric_rag renders', async () => {
    const { page, pageErrors, close } = await signedIn(teacher);
    await page.goto(`${server.baseUrl}/rubrics`);
    await expectOneHeading(page, 'Rubrics');
    await page.getByRole('link', { name: 'New rubric' }).click();
    await expectOneHeading(page, 'New rubric');

    await page.getByLabel('Title').fill('Lab report');
    await page.getByLabel('Scoring type').selectOption('percentage');
    await page.getByLabel('Maximum score').fill('100');
    await page.getByRole('button', { name: 'Add criterion' }).click();
    await page.getByRole('button', { name: 'Add criterion' }).click();
    await page.getByRole('button', { name: 'Add level' }).click();
    await page.getByRole('button', { name: 'Add level' }).click();
    for (const [index, level] of LEVELS.entries()) {
      await page.getByLabel(`Label of level ${index + 1}`).fill(level.label);
      await page.getByLabel(`Score of level ${index + 1}`).fill(level.score);
    }
    for (const [row, criterion] of CRITERIA.entries()) {
      await page.getByLabel(`Name of criterion ${row + 1}`).fill(criterion.name);
      await page.getByLabel(`Description of criterion ${row + 1}`).fill(criterion.description);
      await page.getByLabel(`Weight of criterion ${row + 1}`).fill(criterion.weight);
      for (const [column, level] of LEVELS.entries()) {
        await page
          .getByLabel(`Criterion ${row + 1}, level ${column + 1}: description`)
          .fill(`${criterion.name} is ${level.label.toLowerCase()}`);
      }
    }

    const weightError = page.getByRole('alert').filter({ hasText: 'with percentage scoring they must total 100' });
    await expect.poll(() => weightError.innerText()).toContain('The weights total 90');
    await page.getByRole('button', { name: 'Save rubric' }).click();
    await page.getByText('Fix the weights before saving.').waitFor();
    await page.getByLabel('Weight of criterion 3').fill('40');
    await weightError.waitFor({ state: 'detached' });
    await page.getByText('Weights total 100.').waitFor();
    expect(await page.getByText('Fix the weights before saving.').count()).toBe(0);

    const preview = page.locator('pre[aria-label="What the assistant receives"]');
    await expect.poll(() => preview.innerText()).toContain('### 3. Analysis (weight 40, 40% of the final score)');
    await expectAccessible(page);
    await screenshot(page, 'rubric-editor-built-1280');

    await page.getByRole('button', { name: 'Save rubric' }).click();
    await page.waitForURL(/\/rubrics\/[0-9a-f-]{36}$/);
    await expectOneHeading(page, 'Lab report');
    await page.getByText('The rubric was created.').waitFor();
    rubricId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
    const saved = documentOf(await readRubric(teacher, rubricId));
    expect(saved.criteria.map((criterion) => criterion.name)).toEqual(['Hypothesis', 'Method', 'Analysis']);
    expect(saved.criteria[0]!.levels.map((level) => [level.label, level.score])).toEqual(
      LEVELS.map((level) => [level.label, Number(level.score)]),
    );
    // The preview on the saved rubric's page is, to the character, what rubric_rag puts in {rubric}.
    await expect.poll(async () => `${await preview.textContent()}`).toBe(evaluationMarkdown(saved));
    expect(pageErrors).toEqual([]);
    await close();
  });

  it('reorders criteria and levels with the keyboard buttons, and saves the new order', async () => {
    const { page, close } = await signedIn(teacher);
    await page.goto(`${server.baseUrl}/rubrics/${rubricId}`);
    await expectOneHeading(page, 'Lab report');
    await page.getByRole('button', { name: 'Move criterion 3 up' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByLabel('Name of criterion 2').inputValue()).toBe('Analysis');
    await page.getByText('Criterion moved to position 2 of 3.').waitFor();
    await page.getByRole('button', { name: 'Move level 1 right' }).click();
    await expect.poll(() => page.getByLabel('Label of level 2').inputValue()).toBe('Exemplary');
    expect(await page.getByLabel('Criterion 2, level 2: description').inputValue()).toBe('Analysis is exemplary');
    await page.getByRole('button', { name: 'Save rubric' }).click();
    await page.getByText('The rubric was saved.').waitFor();
    const saved = documentOf(await readRubric(teacher, rubricId));
    expect(saved.criteria.map((criterion) => [criterion.name, criterion.order])).toEqual([
      ['Hypothesis', 0],
      ['Analysis', 1],
      ['Method', 2],
    ]);
    expect(saved.criteria[1]!.levels.map((level) => level.label)).toEqual(['Proficient', 'Exemplary', 'Developing', 'Beginning']);
    await close();
  });

  it('exports LAMB JSON and re-imports it identically', async () => {
    const { page, close } = await signedIn(teacher);
    await page.goto(`${server.baseUrl}/rubrics/${rubricId}`);
    await expectOneHeading(page, 'Lab report');
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export LAMB JSON' }).click()]);
    const exportedPath = await download.path();
    const exported = JSON.parse(await readFile(exportedPath, 'utf8')) as RubricDocument;
    expect(download.suggestedFilename()).toBe('lab-report.json');
    expect(exported).toEqual(documentOf(await readRubric(teacher, rubricId)));

    await page.goto(`${server.baseUrl}/rubrics`);
    await page.getByLabel('Rubric JSON file').setInputFiles(exportedPath);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/rubrics/') && !url.pathname.endsWith(rubricId));
    await expectOneHeading(page, 'Lab report');
    const importedId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1) ?? '');
    expect(importedId).not.toBe(rubricId);
    const reimported = documentOf(await readRubric(teacher, importedId));
    expect(comparable(reimported)).toEqual(comparable(exported));
    await close();
  });

  it('names what is wrong with an import: not JSON, not an object, and a rule of LAMB by its path', async () => {
    const { page, close } = await signedIn(teacher);
    await page.goto(`${server.baseUrl}/rubrics`);
    await expectOneHeading(page, 'Rubrics');
    const paste = page.getByLabel('Or paste the JSON');
    const importButton = page.getByRole('button', { name: 'Import', exact: true });
    await paste.fill('{"title": ');
    await importButton.click();
    await page.getByRole('alert').filter({ hasText: 'This is not JSON' }).waitFor();
    await paste.fill('[1, 2]');
    await importButton.click();
    await page.getByRole('alert').filter({ hasText: 'must be one rubric object, not an array' }).waitFor();
    await paste.fill(JSON.stringify({ title: 'Short', scoringType: 'points', maxScore: 4, criteria: [] }));
    await importButton.click();
    await page.getByRole('alert').filter({ hasText: '"criteria" must hold at least one criterion.' }).waitFor();
    await close();
  });

  it('"Use in an assistant" opens the studio with a rubric tool and the rubric chosen', async () => {
    const { page, pageErrors, close } = await signedIn(teacher);
    await page.goto(`${server.baseUrl}/rubrics/${rubricId}`);
    await expectOneHeading(page, 'Lab report');
    await page.getByRole('link', { name: 'Use in an assistant' }).click();
    await page.waitForURL((url) => url.pathname === '/assistants/new' && url.searchParams.get('rubric') === rubricId);
    const picker = page.getByRole('combobox', { name: 'Rubric', exact: true });
    await expect.poll(() => picker.inputValue()).toBe(rubricId);
    // The picker's options load after the form: until then the chosen id shows as "not listed".
    await expect.poll(() => picker.locator('option:checked').innerText()).toBe('Lab report');
    await expect.poll(() => page.getByLabel('Prompt template').inputValue()).toContain('{rubric}');
    expect(pageErrors).toEqual([]);
    await close();
  });

  it('shows a shared rubric read-only to a colleague, with no edit controls', async () => {
    const shared = await request(server, 'PATCH', `/api/rubrics/${rubricId}`, {
      token: teacher.token,
      body: { visibility: 'organization' },
    });
    expect(shared.status, shared.text).toBe(200);
    for (const width of [1280, 375]) {
      const { page, close } = await signedIn(colleague, width);
      await page.goto(`${server.baseUrl}/rubrics/${rubricId}`);
      await expectOneHeading(page, 'Lab report');
      await page.getByText('You may view and use this rubric').waitFor();
      expect(await page.getByRole('button', { name: 'Save rubric' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Add criterion' }).count()).toBe(0);
      expect(await page.getByRole('textbox').count()).toBe(0);
      expect(await page.getByRole('cell', { name: 'Analysis is exemplary' }).count()).toBe(1);
      await expectAccessible(page);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await screenshot(page, `rubric-read-only-${width}`);
      await close();
    }
    // The colleague's studio offers the shared rubric by its title, not as an id it does not list.
    const { page, close } = await signedIn(colleague);
    await page.goto(`${server.baseUrl}/assistants/new?rubric=${encodeURIComponent(rubricId)}`);
    const picker = page.getByRole('combobox', { name: 'Rubric', exact: true });
    await expect.poll(() => picker.inputValue()).toBe(rubricId);
    await expect.poll(() => picker.locator('option:checked').innerText()).toBe('Lab report');
    await close();
  });

  it('gives a learner and a teacher of another organization the not-found state', async () => {
    const privateRubric = await request(server, 'POST', '/api/rubrics', {
      token: teacher.token,
      body: {
        title: 'Private drafts',
        scoringType: 'points',
        maxScore: 4,
        criteria: [
          {
            name: 'Clarity',
            description: 'Is it clear',
            weight: 1,
            levels: [
              { score: 1, label: 'Yes', description: 'Clear' },
              { score: 0, label: 'No', description: 'Unclear' },
            ],
          },
        ],
      },
    });
    expect(privateRubric.status, privateRubric.text).toBe(201);
    for (const [user, id] of [
      [learner, privateRubric.body.rubricId],
      [outsider, rubricId],
    ] as const) {
      const { page, close } = await signedIn(user);
      await page.goto(`${server.baseUrl}/rubrics/${id}`);
      await expectOneHeading(page, 'Page not found');
      await page.getByText('This rubric does not exist, or you may not see it.').waitFor();
      expect(await page.getByText('Private drafts').count()).toBe(0);
      expect(await page.getByText('Lab report').count()).toBe(0);
      await close();
    }
  });

  it('fits and passes axe-core at 375 px with the whole grid', async () => {
    const { page, close } = await signedIn(teacher, 375);
    await page.goto(`${server.baseUrl}/rubrics/${rubricId}`);
    await expectOneHeading(page, 'Lab report');
    await page.getByLabel('Name of criterion 3').waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await expectAccessible(page);
    await screenshot(page, 'rubric-editor-375');
    await page.goto(`${server.baseUrl}/rubrics`);
    await expectOneHeading(page, 'Rubrics');
    await expectAccessible(page);
    await screenshot(page, 'rubric-list-375');
    await close();
  });

  it('deletes a rubric from the list only after a confirmation', async () => {
    const { page, close } = await signedIn(teacher);
    await page.goto(`${server.baseUrl}/rubrics`);
    await expectOneHeading(page, 'Rubrics');
    const article = page.getByRole('article', { name: 'Private drafts' });
    await article.waitFor();
    await article.getByRole('button', { name: 'Delete Private drafts' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this rubric?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await article.count()).toBe(1);
    await article.getByRole('button', { name: 'Delete Private drafts' }).click();
    await confirm.getByRole('button', { name: 'Delete rubric' }).click();
    await page.getByText('"Private drafts" was deleted.').waitFor();
    await article.waitFor({ state: 'detached' });
    const listed = await request(server, 'GET', '/api/rubrics', { token: teacher.token });
    expect((listed.body.items as { title: string }[]).map((item) => item.title)).not.toContain('Private drafts');
    await close();
  });
});
