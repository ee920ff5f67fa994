/**
 * Proves in a real Chromium the template library's pages (docs/templates.md): on /templates a
 * teacher makes a prompt template in the dialog, duplicates a system-wide one into their own copy
 * and deletes a template after the confirmation; "Start from a template" fills a new assistant,
 * which saves with the template's prompts; "Save as template" on an assistant's page and on a
 * rubric's page keeps them as templates; a rubric template fills a new rubric. axe-core finds
 * nothing serious at 1280 and 375 px, and nothing scrolls sideways on a phone.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { RUBRIC_CONTENT } from './support/template-bodies.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';

describe('the template pages', () => {
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let adminToken: string;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: 'templates-teacher@merino.test', role: 'creator' });
    const system = await request(server, 'POST', '/api/templates', {
      token: adminToken,
      body: {
        kind: 'prompt',
        name: 'Socratic tutor',
        description: 'Answers with questions',
        tags: ['pedagogy'],
        language: 'en',
        visibility: 'system',
        system_prompt: 'Never give the answer; ask a guiding question.',
        prompt_template: 'Student: {user_input}',
      },
    });
    expect(system.status, system.text).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  async function signedIn(width = 1280): Promise<{ page: Page; pageErrors: string[]; close: () => Promise<void> }> {
    const { context, page, pageErrors } = await openPage(browser, { width });
    await logInThroughPage(page, server.baseUrl, teacher.email, teacher.password);
    return { page, pageErrors, close: () => context.close() };
  }

  async function teacherTemplates(): Promise<Array<Record<string, any>>> {
    const listed = await request(server, 'GET', '/api/templates?limit=100', { token: teacher.token });
    return listed.body.items;
  }

  it('makes, duplicates and deletes templates on /templates, reached from the header', async () => {
    const { page, pageErrors, close } = await signedIn();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('heading', { level: 1, name: 'Templates' }).waitFor();
    await page.getByRole('heading', { level: 2, name: 'Socratic tutor' }).waitFor();

    await page.getByRole('button', { name: 'New template' }).click();
    const dialog = page.getByRole('dialog', { name: 'New prompt template' });
    await dialog.getByRole('textbox', { name: 'Name', exact: true }).fill('Lab report coach');
    await dialog.getByRole('textbox', { name: 'Tags' }).fill('chemistry, writing');
    await dialog.getByRole('textbox', { name: 'System prompt' }).fill('Coach the structure of a lab report.');
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Save template' }).click();
    await page.getByText('"Lab report coach" was saved.').waitFor();
    await page.getByRole('heading', { level: 2, name: 'Lab report coach' }).waitFor();

    await page.getByRole('button', { name: 'Duplicate Socratic tutor' }).click();
    await page.getByText('Your copy "Socratic tutor (copy)" was made.').waitFor();
    // The system-wide original offers no Edit or Delete to a teacher; their copy does.
    expect(await page.getByRole('button', { name: 'Edit Socratic tutor', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Edit Socratic tutor (copy)' }).waitFor();

    await page.getByRole('combobox', { name: 'Kind' }).selectOption('prompt');
    await page.getByRole('textbox', { name: 'Tag' }).fill('chemistry');
    await expect.poll(() => page.getByRole('heading', { level: 2 }).allInnerTexts()).toEqual(['Lab report coach']);
    await page.getByRole('textbox', { name: 'Tag' }).fill('');
    await screenshot(page, 'templates-1280');
    await expectAccessible(page);

    await page.getByRole('button', { name: 'Delete Lab report coach' }).click();
    await page.getByRole('dialog', { name: 'Delete this template?' }).getByRole('button', { name: 'Delete template' }).click();
    await page.getByText('"Lab report coach" was deleted.').waitFor();
    const names = (await teacherTemplates()).map((template) => template.name);
    expect(names).toContain('Socratic tutor (copy)');
    expect(names).not.toContain('Lab report coach');
    const copy = (await teacherTemplates()).find((template) => template.name === 'Socratic tutor (copy)');
    expect(copy).toMatchObject({ visibility: 'personal', is_mine: true });
    expect(pageErrors).toEqual([]);
    await close();
  });

  it('creates an assistant from a template, then saves an assistant as a template', async () => {
    const { page, pageErrors, close } = await signedIn();
    await page.goto(`${server.baseUrl}/assistants/new`);
    await page.getByRole('button', { name: 'Start from a template' }).click();
    const chooser = page.getByRole('dialog', { name: 'Start from a template' });
    await chooser.getByRole('combobox', { name: 'Template' }).selectOption({ label: 'Socratic tutor (System-wide)' });
    await expectAccessible(page);
    await chooser.getByRole('button', { name: 'Use template' }).click();
    await page.getByText('Filled from the template "Socratic tutor". Review it, then save.').waitFor();
    await page.getByRole('radio', { name: 'Classic' }).check();
    expect(await page.getByRole('textbox', { name: 'System prompt', exact: true }).inputValue()).toBe(
      'Never give the answer; ask a guiding question.',
    );
    expect(await page.getByRole('textbox', { name: 'Name', exact: true }).inputValue()).toBe('Socratic tutor');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Socratic biology');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.waitForURL(/\/assistants\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const stored = await request(server, 'GET', `/api/assistants/${id}`, { token: teacher.token });
    expect(stored.body).toMatchObject({
      name: 'Socratic biology',
      description: 'Answers with questions',
      system_prompt: 'Never give the answer; ask a guiding question.',
      prompt_template: 'Student: {user_input}',
    });

    await page.getByRole('heading', { level: 1, name: 'Socratic biology' }).waitFor();
    await page.getByRole('button', { name: 'Save as template' }).click();
    const saving = page.getByRole('dialog', { name: 'Save as template' });
    await saving.getByRole('textbox', { name: 'Name', exact: true }).fill('Biology questions');
    await saving.getByRole('combobox', { name: 'Visibility' }).selectOption('organization');
    await expectAccessible(page);
    await saving.getByRole('button', { name: 'Save template' }).click();
    await page.getByText('Saved as the template "Biology questions".').waitFor();
    await screenshot(page, 'assistant-saved-as-template-1280');
    const saved = (await teacherTemplates()).find((template) => template.name === 'Biology questions');
    expect(saved).toMatchObject({ kind: 'prompt', visibility: 'organization' });
    const whole = await request(server, 'GET', `/api/templates/${saved?.id}`, { token: teacher.token });
    expect(whole.body.system_prompt).toBe('Never give the answer; ask a guiding question.');
    expect(pageErrors).toEqual([]);
    await close();
  });

  it('saves a rubric as a template and starts a new rubric from it', async () => {
    const rubric = await request(server, 'POST', '/api/rubrics', {
      token: teacher.token,
      body: { ...RUBRIC_CONTENT, title: 'Argument essay' },
    });
    expect(rubric.status, rubric.text).toBe(201);
    const { page, pageErrors, close } = await signedIn();
    await page.goto(`${server.baseUrl}/rubrics/${rubric.body.rubricId}`);
    await page.getByRole('heading', { level: 1, name: 'Argument essay' }).waitFor();
    await page.getByRole('button', { name: 'Save as template' }).click();
    await page.getByRole('dialog', { name: 'Save as template' }).getByRole('button', { name: 'Save template' }).click();
    await page.getByText('Saved as the template "Argument essay".').waitFor();

    await page.goto(`${server.baseUrl}/rubrics/new`);
    await page.getByRole('button', { name: 'Start from a template' }).click();
    const chooser = page.getByRole('dialog', { name: 'Start from a template' });
    await chooser.getByRole('combobox', { name: 'Template' }).selectOption({ label: 'Argument essay (Personal)' });
    await chooser.getByRole('button', { name: 'Use template' }).click();
    await page.getByText('Filled from the template "Argument essay". Review it, then save.').waitFor();
    expect(await page.getByRole('textbox', { name: 'Name of criterion 1' }).inputValue()).toBe('Thesis');
    await page.getByRole('button', { name: 'Save rubric' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/rubrics/') && url.pathname !== '/rubrics/new');
    const listed = await request(server, 'GET', '/api/rubrics?q=argument', { token: teacher.token });
    expect(listed.body.total).toBe(2);
    expect(pageErrors).toEqual([]);
    await close();
  });

  it('shows /templates on a phone without sideways scrolling or serious accessibility problems', async () => {
    const { page, pageErrors, close } = await signedIn(375);
    await page.goto(`${server.baseUrl}/templates`);
    await page.getByRole('heading', { level: 2, name: 'Socratic tutor', exact: true }).waitFor();
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await expectAccessible(page);
    await screenshot(page, 'templates-375');
    expect(pageErrors).toEqual([]);
    await close();
  });
});
