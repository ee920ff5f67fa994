/**
 * Visits every page of the web app as a signed-in creator, at 375 px and 1280 px, light and dark,
 * and proves each has exactly one h1, no horizontal scrolling, no uncaught script error, and no
 * serious or critical axe-core violation. Each page's own test covers its flows; this one keeps
 * the whole app honest as pages are added (add a page's URL to PAGES). Screenshots of each state go
 * to reports/screenshots/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, request, type TestServer } from './support/test-server.js';
import { startChatWorld, type ChatWorld } from './support/chat-world.js';
import { RICH_ANSWER } from './support/chat-pages.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot, type OpenedPage } from './support/browser.js';

interface PageUnderTest {
  name: string;
  path: (ids: SeededIds) => string;
  /** The page's h1 once it has loaded its data. */
  heading: string;
  /** Brings the page to the state worth scanning (folded sections opened). */
  prepare?: (page: Page) => Promise<void>;
}

interface SeededIds {
  classic: number;
  multiTool: number;
  /** The chats world's assistant, which reads a file: its answers carry a step and a source. */
  tutor: number;
  chat: number;
  /** A knowledge base with one ingested document, for the document text page. */
  knowledgeBase: number;
  document: number;
  rubric: string;
}

const PAGES: PageUnderTest[] = [
  { name: 'assistants', path: () => '/assistants', heading: 'Assistants' },
  { name: 'new-assistant', path: () => '/assistants/new', heading: 'New assistant' },
  { name: 'classic-assistant', path: (ids) => `/assistants/${ids.classic}`, heading: 'Essay coach' },
  { name: 'multi-tool-assistant', path: (ids) => `/assistants/${ids.multiTool}`, heading: 'Field trip planner' },
  { name: 'assistant-tests', path: (ids) => `/assistants/${ids.multiTool}/tests`, heading: 'Tests of Field trip planner' },
  { name: 'assistant-insights', path: (ids) => `/assistants/${ids.multiTool}/insights`, heading: 'Insights' },
  { name: 'knowledge-bases', path: () => '/knowledge-bases', heading: 'Knowledge bases' },
  {
    name: 'document-text',
    path: (ids) => `/knowledge-bases/${ids.knowledgeBase}/documents/${ids.document}?passage=1`,
    heading: 'mitosis.md',
  },
  { name: 'knowledge-base', path: (ids) => `/knowledge-bases/${ids.knowledgeBase}`, heading: 'Cell biology notes' },
  { name: 'rubrics', path: () => '/rubrics', heading: 'Rubrics' },
  { name: 'new-rubric', path: () => '/rubrics/new', heading: 'New rubric' },
  { name: 'rubric', path: (ids) => `/rubrics/${ids.rubric}`, heading: 'Essay writing' },
  { name: 'files', path: () => '/files', heading: 'Files' },
  { name: 'templates', path: () => '/templates', heading: 'Templates' },
  { name: 'api-keys', path: () => '/settings/api-keys', heading: 'API keys' },
  { name: 'admin-usage', path: () => '/admin/usage', heading: 'Usage' },
  { name: 'chat-home', path: () => '/chat', heading: 'Chat' },
  { name: 'new-chat', path: (ids) => `/chat/${ids.tutor}`, heading: 'Biology tutor' },
  {
    name: 'kept-chat',
    path: (ids) => `/chat/${ids.tutor}/${ids.chat}`,
    heading: 'Biology tutor',
    prepare: async (page) => {
      await page.getByText('Tool activity: 1 step').click();
      await page.getByText('Thinking', { exact: true }).click();
      await page.locator('.katex').first().waitFor();
    },
  },
  { name: 'sign-up', path: () => '/signup', heading: 'Sign up to Merino' },
  // A creator is told the organization's settings are for its admins (the admin's view: its own test).
  { name: 'admin-settings-refused', path: () => '/admin/settings', heading: 'Organization settings' },
  // A creator is told the admin pages are for administrators; test/web-admin-pages-*.test.ts scans them as admins.
  { name: 'admin', path: () => '/admin', heading: 'Administration' },
  { name: 'admin-organizations', path: () => '/admin/organizations', heading: 'Organizations' },
  { name: 'admin-users', path: () => '/admin/users', heading: 'People' },
  { name: 'admin-audit', path: () => '/admin/audit', heading: 'Audit log' },
  { name: 'unknown-page', path: () => '/no-such-page', heading: 'Page not found' },
];

const STATES = [
  { width: 375, colorScheme: 'light' as const },
  { width: 375, colorScheme: 'dark' as const },
  { width: 1280, colorScheme: 'light' as const },
  { width: 1280, colorScheme: 'dark' as const },
];

describe('every page of the web app', () => {
  let world: ChatWorld;
  let server: TestServer;
  let browser: Browser;
  let creator: { email: string; password: string };
  const ids: SeededIds = { classic: 0, multiTool: 0, tutor: 0, chat: 0, knowledgeBase: 0, document: 0, rubric: '' };

  beforeAll(async () => {
    world = await startChatWorld('sqlite');
    server = world.server;
    browser = await launchBrowser();
    const adminToken = world.adminToken;
    const created = await createUser(server, adminToken, { email: 'teacher@merino.test', role: 'creator' });
    creator = created;
    const classic = await request(server, 'POST', '/api/assistants', {
      token: created.token,
      body: { name: 'Essay coach', description: 'Helps with essays', system_prompt: 'You coach essays.', prompt_template: '{user_input}' },
    });
    const multiTool = await request(server, 'POST', '/api/assistants', {
      token: created.token,
      body: {
        name: 'Field trip planner',
        prompt_template: '{user_input}',
        metadata: {
          assistant_type: 'multi_tool',
          prompt_processor: 'multi_augment',
          tools: [{ type: 'weather', enabled: true, config: {} }],
        },
      },
    });
    expect([classic.status, multiTool.status], `${classic.text} ${multiTool.text}`).toEqual([201, 201]);
    ids.classic = classic.body.id;
    ids.multiTool = multiTool.body.id;
    ids.tutor = world.assistantId;
    const chat = await request(server, 'POST', '/api/chats', { token: created.token, body: { assistant_id: world.assistantId } });
    ids.chat = chat.body.id;
    world.provider.enqueue(RICH_ANSWER);
    const answered = await request(server, 'POST', `/api/chats/${ids.chat}/messages`, {
      token: created.token,
      body: { content: 'How do cells divide, and how fast do they grow?' },
    });
    expect([chat.status, answered.status], answered.text).toEqual([201, 200]);
    const knowledgeBase = await request(server, 'POST', '/api/knowledge-bases', {
      token: created.token,
      body: { name: 'Cell biology notes', description: 'Lecture notes for weeks 1 to 4' },
    });
    expect(knowledgeBase.status, knowledgeBase.text).toBe(201);
    ids.knowledgeBase = knowledgeBase.body.id;
    const notes = '# Mitosis\n\nOne cell divides into two identical cells.\n\n# Meiosis\n\nOne cell divides into four gametes.';
    const uploaded = await uploadDocument(server, created.token, ids.knowledgeBase, 'mitosis.md', notes);
    expect(uploaded.status, uploaded.text).toBe(202);
    expect((await waitForJob(server, created.token, ids.knowledgeBase, uploaded.body.job_id)).status).toBe('completed');
    ids.document = uploaded.body.document_id;
    const levels = [
      { score: 2, label: 'Good', description: 'Clear and supported' },
      { score: 1, label: 'Weak', description: 'Unclear' },
    ];
    const rubric = await request(server, 'POST', '/api/rubrics', {
      token: created.token,
      body: {
        title: 'Essay writing',
        criteria: [
          { name: 'Thesis', description: 'The main argument', weight: 50, levels },
          { name: 'Evidence', description: 'Support for it', weight: 50, levels },
        ],
        scoringType: 'points',
        maxScore: 10,
      },
    });
    expect(rubric.status, rubric.text).toBe(201);
    ids.rubric = rubric.body.rubricId;
  });

  afterAll(async () => {
    await browser.close();
    await world.close();
  });

  describe.each(STATES)('at $width px, $colorScheme', (state) => {
    let opened: OpenedPage;

    beforeAll(async () => {
      opened = await openPage(browser, state);
      await logInThroughPage(opened.page, server.baseUrl, creator.email, creator.password);
    });

    afterAll(async () => {
      await opened.context.close();
    });

    it.each(PAGES)('shows $name with one h1, no overflow and no serious accessibility problem', async (pageUnderTest) => {
      const { page, pageErrors } = opened;
      await page.goto(`${server.baseUrl}${pageUnderTest.path(ids)}`);
      await page.getByRole('heading', { level: 1, name: pageUnderTest.heading, exact: true }).waitFor();
      // A page may load in several parts, each with its own "Loading…" status (the assistant page and its usage panel).
      await expect.poll(() => page.getByRole('status').filter({ hasText: 'Loading' }).count(), { timeout: 20_000 }).toBe(0);
      await pageUnderTest.prepare?.(page);
      expect(await page.locator('h1').count()).toBe(1);
      expect(
        await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
      ).toBeLessThanOrEqual(0);
      await expectAccessible(page);
      await screenshot(page, `page-${pageUnderTest.name}-${state.width}-${state.colorScheme}`);
      expect(pageErrors).toEqual([]);
    });
  });
});
