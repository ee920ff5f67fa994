/**
 * Proves in a real Chromium that a teacher's "Try a query" on a knowledge base of three uploaded
 * documents (markdown, plain text, HTML) shows a passage from each, ranked, with its score and the
 * document it came from, its text shown as text (markup in it is not rendered); that an impossible
 * threshold says no passage scored above it; that "Open in the document" opens the document's text
 * at that passage (marked, focused, its sections as headings) and a long document loads a page
 * around it with earlier and later passages on demand;
 * and that a learner following a chat source's "Open the document" reaches the text through the
 * assistant. axe-core finds nothing serious or critical at 1280 and 375 px, and nothing overflows.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, expectOneHeading, screenshot } from './support/browser.js';
import { chatPageSuite, sendMessage, signedInPage } from './support/chat-pages.js';
import { uploadDocument, waitForJob } from './support/knowledge-uploads.js';
import { horizontalOverflow, isFocused } from './support/page-checks.js';
import { addSourcedAssistant, QUESTION } from './support/sourced-assistant.js';
import { createUser, request, type CreatedUser } from './support/test-server.js';

const DOCUMENTS: ReadonlyArray<[string, string]> = [
  ['leaves.md', '# Leaves\n\nLeaves hold chlorophyll, which captures light for photosynthesis in the chloroplasts.'],
  ['roots.txt', 'Roots take up the <b>water</b> that photosynthesis splits; without water there is no light reaction.'],
  [
    'sugar.html',
    '<html><body><h1>Sugar</h1><p>The sugar that photosynthesis makes travels from the leaves to the roots through the phloem.</p></body></html>',
  ],
];

/** Sixty passages of one short paragraph each, under three headings, for paging through a long document. */
const LONG_DOCUMENT = ['Early growth', 'Flowering', 'Seeds']
  .map(
    (section, sectionIndex) =>
      `# ${section}\n\n` +
      Array.from(
        { length: 20 },
        (_unused, index) => `Note ${sectionIndex * 20 + index} on ${section.toLowerCase()}: the plant keeps its energy for later.`,
      ).join('\n\n'),
  )
  .join('\n\n');

describe('a knowledge base text in the browser', () => {
  const suite = chatPageSuite();
  let teacher: CreatedUser;
  let knowledgeBaseId: number;
  let longKnowledgeBaseId: number;
  let longDocumentId: number;

  async function uploaded(knowledgeBase: number, fileName: string, content: string): Promise<number> {
    const answer = await uploadDocument(suite.world.server, teacher.token, knowledgeBase, fileName, content);
    expect(answer.status, answer.text).toBe(202);
    expect((await waitForJob(suite.world.server, teacher.token, knowledgeBase, answer.body.job_id)).status).toBe('completed');
    return answer.body.document_id as number;
  }

  async function createdKnowledgeBase(body: Record<string, unknown>): Promise<number> {
    const answer = await request(suite.world.server, 'POST', '/api/knowledge-bases', { token: teacher.token, body });
    expect(answer.status, answer.text).toBe(201);
    return answer.body.id as number;
  }

  async function tryQuery(page: Page, question: string, threshold: string): Promise<void> {
    const form = page.getByRole('form', { name: 'Try a query' });
    await form.getByLabel('Question').fill(question);
    await form.getByLabel('Passages (top k)').fill('10');
    await form.getByLabel('Minimum score').fill(threshold);
    await form.getByRole('button', { name: 'Search' }).click();
  }

  beforeAll(async () => {
    teacher = await createUser(suite.world.server, suite.world.adminToken, { email: 'botany-teacher@merino.test', role: 'creator' });
    knowledgeBaseId = await createdKnowledgeBase({ name: 'Photosynthesis' });
    for (const [fileName, content] of DOCUMENTS) await uploaded(knowledgeBaseId, fileName, content);
    longKnowledgeBaseId = await createdKnowledgeBase({ name: 'Plant life', chunk_size: 100, chunk_overlap: 0 });
    longDocumentId = await uploaded(longKnowledgeBaseId, 'plant-life.md', LONG_DOCUMENT);
  });

  it('shows a passage from each of three documents with its rank and score, and says so when none scores enough', async () => {
    for (const width of [1280, 375]) {
      const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, teacher, { width });
      await page.goto(`${suite.world.server.baseUrl}/knowledge-bases/${knowledgeBaseId}`);
      await expectOneHeading(page, 'Photosynthesis');
      await page.getByRole('region', { name: 'Try a query' }).waitFor();
      await tryQuery(page, 'What does photosynthesis need from leaves, roots and sugar?', '0');
      const passages = page.getByRole('list', { name: 'Passages an assistant would be given' }).getByRole('listitem');
      await expect.poll(() => passages.count()).toBe(3);
      const shown = await passages.allInnerTexts();
      for (const [fileName] of DOCUMENTS) expect(shown.filter((text) => text.includes(fileName))).toHaveLength(1);
      shown.forEach((text, index) => expect(text).toMatch(new RegExp(`^#${index + 1}\\s+score \\d\\.\\d{3}`)));
      expect(shown.join('\n')).toContain('travels from the leaves to the roots');
      // A passage's text is shown as written: markup in it is text, never an element.
      expect(shown.join('\n')).toContain('Roots take up the <b>water</b>');
      expect(await passages.locator('b').count()).toBe(0);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await expectAccessible(page);
      await screenshot(page, `knowledge-base-try-a-query-${width}`);

      await tryQuery(page, 'photosynthesis', '1');
      await page.getByText('No passage scored above the threshold.').waitFor();
      expect(await passages.count()).toBe(0);
      // A field out of range is named at the field, and nothing is sent.
      await page.getByRole('form', { name: 'Try a query' }).getByLabel('Minimum score').fill('4');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByText('Give a number from 0 to 1.').waitFor();
      await expectAccessible(page);
      expect(pageErrors).toEqual([]);
      await context.close();
    }
  });

  it('opens a document at a passage from a query, marked and focused, with earlier and later passages on demand', async () => {
    const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, teacher);
    await page.goto(`${suite.world.server.baseUrl}/knowledge-bases/${longKnowledgeBaseId}`);
    await expectOneHeading(page, 'Plant life');
    await tryQuery(page, 'Note 55 on seeds', '0');
    const best = page.getByRole('list', { name: 'Passages an assistant would be given' }).getByRole('listitem').first();
    await best.waitFor();
    expect(await best.innerText()).toContain('Note 55 on seeds');
    await best.getByRole('link', { name: /^Open in the document \(passage \d+ of plant-life\.md\)$/ }).click();
    await page.waitForURL(new RegExp(`/knowledge-bases/${longKnowledgeBaseId}/documents/${longDocumentId}\\?passage=\\d+$`));
    await expectOneHeading(page, 'plant-life.md');
    const opened = page.getByRole('region', { name: 'The passage you opened' });
    await opened.waitFor();
    expect(await opened.innerText()).toContain('Note 55 on seeds');
    await expect.poll(() => isFocused(opened)).toBe(true);
    // Opened past the first page: only the page around it is loaded, and earlier passages come on demand.
    expect(await page.getByText('Note 3 on early growth').count()).toBe(0);
    expect(await page.getByRole('heading', { level: 2, name: 'Seeds' }).count()).toBe(1);
    await expectAccessible(page);
    await screenshot(page, 'knowledge-document-text-at-a-passage-1280');
    await page.getByRole('button', { name: 'Load earlier passages' }).click();
    await page.getByText('Note 3 on early growth').waitFor();
    expect(await page.getByRole('heading', { level: 2 }).allInnerTexts()).toEqual(['Early growth', 'Flowering', 'Seeds']);
    expect(await page.getByRole('button', { name: 'Load earlier passages' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Load more passages' }).count()).toBe(0);

    // From the beginning, the first page, then the rest.
    await page.goto(`${suite.world.server.baseUrl}/knowledge-bases/${longKnowledgeBaseId}/documents/${longDocumentId}`);
    await page.getByText(/^Showing 50 of \d+ passages\.$/).waitFor();
    await page.getByRole('button', { name: 'Load more passages' }).click();
    await page.getByText('Note 59 on seeds').waitFor();
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('takes a learner from a chat source to the document text at the cited passage, through the assistant', async () => {
    const { assistantId } = await addSourcedAssistant(suite.world.server, teacher.token);
    for (const width of [1280, 375]) {
      const { page, context, pageErrors } = await signedInPage(suite.browser, suite.world, suite.world.learner, { width });
      await page.goto(`${suite.world.server.baseUrl}/chat/${assistantId}`);
      await page.getByRole('heading', { level: 1, name: 'Plant tutor' }).waitFor();
      suite.world.provider.enqueue({ text: 'Light comes first [1].' });
      await sendMessage(page, QUESTION);
      const sources = page.getByRole('region', { name: 'Sources' }).last();
      await sources.getByText('Show the 2 passages used').click();
      await sources.getByRole('button', { name: 'Show in context' }).first().click();
      const link = sources.getByRole('link', { name: 'Open the document' }).first();
      await link.waitFor();
      expect(await link.getAttribute('href')).toMatch(new RegExp(`/documents/\\d+\\?passage=\\d+&assistant_id=${assistantId}$`));
      await link.click();
      await expectOneHeading(page, 'photosynthesis.md');
      const opened = page.getByRole('region', { name: 'The passage you opened' });
      await opened.waitFor();
      expect(await opened.innerText()).toMatch(/light reactions|Calvin cycle/);
      await expect.poll(() => isFocused(opened)).toBe(true);
      expect(await page.getByRole('heading', { level: 2 }).allInnerTexts()).toEqual(['Light reactions', 'Calvin cycle']);
      expect(await page.getByText('Page 2', { exact: true }).count()).toBe(1);
      expect(await page.getByRole('link', { name: 'Back to the chat' }).getAttribute('href')).toBe(`/chat/${assistantId}`);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await expectAccessible(page);
      await screenshot(page, `knowledge-document-text-from-a-chat-source-${width}`);
      expect(pageErrors).toEqual([]);
      await context.close();
    }
    // Without the assistant, the learner may not read the knowledge base's text.
    const { page, context } = await signedInPage(suite.browser, suite.world, suite.world.learner);
    await page.goto(`${suite.world.server.baseUrl}/knowledge-bases/${longKnowledgeBaseId}/documents/${longDocumentId}?passage=3`);
    await expectOneHeading(page, 'Document not found');
    await context.close();
  });
});
