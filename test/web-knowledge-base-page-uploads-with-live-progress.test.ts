/**
 * Proves in a real Chromium that /knowledge-bases/{id} uploads a PDF, a Word document and a
 * Markdown file chosen together through the input labelled "Upload documents", with a progress
 * bar per file (named for the file) that reaches completion without a reload, live from the job
 * event stream, while the "Documents" table fills in with type, pages and chunks; that a PDF with
 * no text layer and a file over the (lowered) size limit fail with their reasons shown while the
 * others complete; that a file dropped on the drop zone uploads too; that Cancel stops a waiting
 * job and Retry runs it to completion; that the owner sets the language and sharing; that a
 * colleague who may only read it sees the table but no upload or delete control, a learner no
 * upload control, and another organization's user the not-found page; and that it passes
 * axe-core and fits at 1280 and 375 px, mid-upload and finished.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertOrganization } from '../src/store/organizations-repository.js';
import { buildDocx, wordParagraph } from './support/docx-fixture.js';
import { buildPdf } from './support/pdf-fixture.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';

/** The lowered upload limit: the sample files fit, the oversized one does not. */
const UPLOAD_LIMIT_BYTES = 64 * 1024;

interface SampleFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

async function sampleFiles(): Promise<SampleFile[]> {
  const pdf = buildPdf([
    { lines: ['Photosynthesis', 'Plants turn light into sugar in their leaves.'] },
    { lines: ['Chlorophyll is green.'] },
  ]);
  const docx = await buildDocx(wordParagraph('Mitosis', 'Heading1') + wordParagraph('A cell divides into two identical cells.'));
  return [
    { name: 'photosynthesis.pdf', mimeType: 'application/pdf', buffer: Buffer.from(pdf) },
    {
      name: 'mitosis.docx',
      mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      buffer: Buffer.from(docx),
    },
    {
      name: 'osmosis.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Osmosis\n\nWater moves across a membrane towards more salt.\n'),
    },
  ];
}

function hostileFiles(): SampleFile[] {
  return [
    { name: 'scan.pdf', mimeType: 'application/pdf', buffer: Buffer.from(buildPdf([{}])) },
    { name: 'huge.md', mimeType: 'text/markdown', buffer: Buffer.from(`# Huge\n\n${'All work and no play. '.repeat(5_000)}`) },
  ];
}

describe('the knowledge base page', () => {
  let server: TestServer;
  let browser: Browser;
  let teacher: CreatedUser;
  let colleague: CreatedUser;
  let learner: CreatedUser;
  let outsider: CreatedUser;
  let knowledgeBaseId: number;

  function uploadRow(page: Page, fileName: string) {
    return page.getByRole('listitem', { name: fileName });
  }

  function progressOf(page: Page, fileName: string) {
    return page.getByRole('progressbar', { name: new RegExp(fileName.replace('.', '\\.')) });
  }

  async function openKnowledgeBase(page: Page, user: CreatedUser, id = knowledgeBaseId): Promise<void> {
    await logInThroughPage(page, server.baseUrl, user.email, user.password);
    await page.goto(`${server.baseUrl}/knowledge-bases/${id}`);
  }

  function documentNames(page: Page): Promise<string[]> {
    return page.getByRole('table', { name: 'Documents' }).getByRole('rowheader').allInnerTexts();
  }

  beforeAll(async () => {
    server = await startTestServer('sqlite', {
      environment: { KB_UPLOAD_MAX_BYTES: String(UPLOAD_LIMIT_BYTES), JOB_EVENTS_POLL_MS: '100', INGESTION_POLL_MS: '50' },
    });
    browser = await launchBrowser();
    const adminToken = await loginAsAdmin(server);
    teacher = await createUser(server, adminToken, { email: 'teacher@merino.test', role: 'creator' });
    colleague = await createUser(server, adminToken, { email: 'colleague@merino.test', role: 'creator' });
    learner = await createUser(server, adminToken, { email: 'learner@merino.test', role: 'learner' });
    const elsewhere = await insertOrganization(server.store.db, 'elsewhere', 'Elsewhere');
    outsider = await createUser(server, adminToken, { email: 'outsider@merino.test', role: 'creator', organization_id: elsewhere });
    const created = await request(server, 'POST', '/api/knowledge-bases', {
      token: teacher.token,
      body: { name: 'Biology readings', description: 'Weeks 1 to 4' },
    });
    expect(created.status, created.text).toBe(201);
    knowledgeBaseId = created.body.id as number;
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('uploads a PDF, a Word file and Markdown together, live to completion, while hostile files fail with their reasons', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await openKnowledgeBase(page, teacher);
    await expectOneHeading(page, 'Biology readings');
    await page.getByText('No documents yet.').waitFor();
    const files = [...(await sampleFiles()), ...hostileFiles()];
    await page.getByLabel('Upload documents').setInputFiles(files);

    for (const file of await sampleFiles()) {
      // The bar is first the upload's, then the job's: the job's reaching 100 is the end.
      const jobBar = page.getByRole('progressbar', { name: `Indexing ${file.name}` });
      await expect.poll(() => jobBar.getAttribute('aria-valuenow'), { timeout: 30_000 }).toBe('100');
      expect(await uploadRow(page, file.name).innerText()).toMatch(/Done: \d+ chunks?/);
    }
    await expect.poll(() => uploadRow(page, 'scan.pdf').innerText(), { timeout: 20_000 }).toContain('Failed: The PDF has no text layer');
    expect(await uploadRow(page, 'scan.pdf').getByRole('button', { name: 'Retry' }).count()).toBe(1);
    await expect.poll(() => uploadRow(page, 'huge.md').innerText()).toMatch(/Failed: Too large: 10[0-9.]+ kB, the limit is 64 kB\./);

    await expect
      .poll(() => documentNames(page), { timeout: 20_000 })
      .toEqual(expect.arrayContaining(['photosynthesis.pdf', 'mitosis.docx', 'osmosis.md', 'scan.pdf']));
    const table = page.getByRole('table', { name: 'Documents' });
    const pdfRow = table.getByRole('row', { name: /photosynthesis\.pdf/ });
    await expect.poll(() => pdfRow.innerText()).toMatch(/PDF\s+2\s+\d+\s+Ready/);
    // The table reloads a moment after each job settles: it may still show an earlier reload's row.
    await expect.poll(() => table.getByRole('row', { name: /mitosis\.docx/ }).innerText()).toMatch(/Word\s+—\s+\d+\s+Ready/);
    await expect.poll(() => table.getByRole('row', { name: /scan\.pdf/ }).innerText()).toContain('Failed');
    expect(await documentNames(page)).not.toContain('huge.md');
    expect(await pdfRow.getByRole('link', { name: 'View text of photosynthesis.pdf' }).getAttribute('href')).toMatch(
      new RegExp(`^/knowledge-bases/${knowledgeBaseId}/documents/\\d+$`),
    );
    const download = page.waitForEvent('download');
    await pdfRow.getByRole('button', { name: 'Download photosynthesis.pdf' }).click();
    expect((await download).suggestedFilename()).toBe('photosynthesis.pdf');

    // The query an assistant would make finds a passage in each of the three formats just uploaded.
    const query = page.getByRole('form', { name: 'Try a query' });
    await query.getByLabel('Question').fill('photosynthesis mitosis osmosis');
    await query.getByLabel('Passages (top k)').fill('10');
    await query.getByLabel('Minimum score').fill('0');
    await query.getByRole('button', { name: 'Search' }).click();
    const passages = page.getByRole('list', { name: 'Passages an assistant would be given' }).getByRole('listitem');
    await expect.poll(() => passages.count()).toBeGreaterThanOrEqual(3);
    const found = (await passages.allInnerTexts()).join('\n');
    for (const name of ['photosynthesis.pdf', 'mitosis.docx', 'osmosis.md']) expect(found).toContain(name);

    await expectAccessible(page);
    await screenshot(page, 'knowledge-base-page-finished-1280');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('uploads a dropped file, cancels it while it waits, and retries it to completion', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await openKnowledgeBase(page, teacher);
    await expectOneHeading(page, 'Biology readings');
    await server.services.ingestionRunner.stop();
    try {
      const dropZone = page.getByRole('group', { name: /Drop files here/ });
      // A string, not a function: it runs in the page, and the server's TypeScript program has no DOM types.
      const transfer = await page.evaluateHandle(
        `(() => { const data = new DataTransfer(); data.items.add(new File(['# Enzymes\\n\\nEnzymes speed up reactions in the cell.\\n'], 'enzymes.md', { type: 'text/markdown' })); return data; })()`,
      );
      await dropZone.dispatchEvent('drop', { dataTransfer: transfer });
      const row = uploadRow(page, 'enzymes.md');
      await expect.poll(() => row.innerText()).toContain('Waiting to be indexed');
      await expect.poll(() => progressOf(page, 'enzymes.md').getAttribute('aria-label')).toBe('Indexing enzymes.md');
      await screenshot(page, 'knowledge-base-page-waiting-1280');
      await row.getByRole('button', { name: 'Cancel' }).click();
      await expect.poll(() => row.innerText()).toContain('Cancelled');
      await row.getByRole('button', { name: 'Retry' }).click();
      await expect.poll(() => row.innerText()).toContain('Waiting to be indexed');
    } finally {
      server.services.ingestionRunner.start();
    }
    const row = uploadRow(page, 'enzymes.md');
    await expect.poll(() => row.innerText(), { timeout: 20_000 }).toMatch(/Done: \d+ chunks?/);
    await expect.poll(() => documentNames(page)).toContain('enzymes.md');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('deletes a document only after a confirmation', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await openKnowledgeBase(page, teacher);
    await expect.poll(() => documentNames(page)).toContain('enzymes.md');
    await page.getByRole('button', { name: 'Delete enzymes.md' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this document?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    expect(await documentNames(page)).toContain('enzymes.md');
    await page.getByRole('button', { name: 'Delete enzymes.md' }).click();
    await confirm.getByRole('button', { name: 'Delete document' }).click();
    await expect.poll(() => documentNames(page)).not.toContain('enzymes.md');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('lets the owner set the language and share it with the organization', async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await openKnowledgeBase(page, teacher);
    await expectOneHeading(page, 'Biology readings');
    await page.getByLabel('Language', { exact: true }).selectOption('other');
    await page.getByLabel('Language code').fill('not a language');
    await page.getByRole('button', { name: 'Save language' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'could not be saved' }).count()).toBe(1);
    await page.getByLabel('Language', { exact: true }).selectOption('es');
    await page.getByRole('button', { name: 'Save language' }).click();
    await expect
      .poll(async () => (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBaseId}`, { token: teacher.token })).body.language)
      .toBe('es');
    await page.getByLabel('Share with my organization').check();
    await expect
      .poll(async () => (await request(server, 'GET', `/api/knowledge-bases/${knowledgeBaseId}`, { token: teacher.token })).body.visibility)
      .toBe('organization');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('shows a colleague the table without upload or delete, a learner no upload, and another organization not found', async () => {
    const shared = await request(server, 'PATCH', `/api/knowledge-bases/${knowledgeBaseId}`, {
      token: teacher.token,
      body: { visibility: 'organization' },
    });
    expect(shared.status, shared.text).toBe(200);
    const viewer = await openPage(browser);
    await openKnowledgeBase(viewer.page, colleague);
    await expectOneHeading(viewer.page, 'Biology readings');
    await expect.poll(() => documentNames(viewer.page)).toContain('photosynthesis.pdf');
    expect(await viewer.page.getByLabel('Upload documents').count()).toBe(0);
    expect(await viewer.page.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    expect(await viewer.page.getByLabel('Share with my organization').count()).toBe(0);
    await viewer.page.getByText('Language: Español').waitFor();
    expect(viewer.pageErrors).toEqual([]);
    await viewer.context.close();

    const learnerPage = await openPage(browser);
    await openKnowledgeBase(learnerPage.page, learner);
    await expect.poll(() => learnerPage.page.locator('h1').innerText()).toMatch(/Biology readings|Page not found/);
    expect(await learnerPage.page.getByLabel('Upload documents').count()).toBe(0);
    expect(await learnerPage.page.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    await learnerPage.context.close();

    const outsiderPage = await openPage(browser);
    await openKnowledgeBase(outsiderPage.page, outsider);
    await expectOneHeading(outsiderPage.page, 'Page not found');
    expect(await outsiderPage.page.getByLabel('Upload documents').count()).toBe(0);
    await outsiderPage.page.goto(`${server.baseUrl}/knowledge-bases/not-a-number`);
    await expectOneHeading(outsiderPage.page, 'Page not found');
    await outsiderPage.context.close();
  });

  it('passes axe-core and fits at 1280 and 375 px, mid-upload and finished', async () => {
    for (const width of [1280, 375]) {
      const { context, page, pageErrors } = await openPage(browser, { width });
      await openKnowledgeBase(page, teacher);
      await expect.poll(() => documentNames(page)).toContain('photosynthesis.pdf');
      await server.services.ingestionRunner.stop();
      try {
        await page
          .getByLabel('Upload documents')
          .setInputFiles([{ name: `cells-${width}.md`, mimeType: 'text/markdown', buffer: Buffer.from('# Cells\n\nCells are small.\n') }]);
        await expect.poll(() => uploadRow(page, `cells-${width}.md`).innerText()).toContain('Waiting to be indexed');
        expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
        await expectAccessible(page);
        await screenshot(page, `knowledge-base-page-mid-upload-${width}`);
      } finally {
        server.services.ingestionRunner.start();
      }
      await expect.poll(() => uploadRow(page, `cells-${width}.md`).innerText(), { timeout: 20_000 }).toMatch(/Done/);
      await expect.poll(() => documentNames(page)).toContain(`cells-${width}.md`);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await expectAccessible(page);
      await screenshot(page, `knowledge-base-page-finished-${width}`);
      expect(pageErrors).toEqual([]);
      await context.close();
    }
  });
});
