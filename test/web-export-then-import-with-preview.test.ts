/**
 * Proves in a real Chromium that Export on /assistants downloads LAMB's export file, and that
 * dropping an export file on the import zone previews it through the server's dry run — name,
 * type, tools, and a problem for a knowledge base that does not exist — before Confirm imports it
 * and opens the new assistant (checked through the API). A file that is not JSON is told at once
 * and nothing is created. The preview passes axe-core and is screenshot in light and dark.
 */
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { expectAccessible, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { LAMB_ROW_KEYS } from './support/lamb-export-keys.js';

const MISSING_KNOWLEDGE_BASE = '424242';

describe('exporting an assistant and importing it with a preview', () => {
  let server: TestServer;
  let browser: Browser;
  let owner: CreatedUser;
  let exported: Record<string, unknown>;

  /** Drops a file on the import zone as a browser's drag and drop does: a drop event carrying a DataTransfer. */
  async function dropFile(page: Page, name: string, text: string): Promise<void> {
    await page.getByText('Import an assistant').click();
    const zone = page.getByRole('group', { name: 'Drop an export file (.json) here' });
    // A string, not a function: it runs in the page, and the server's TypeScript program has no DOM types.
    const dataTransfer = await page.evaluateHandle(
      `(() => { const transfer = new DataTransfer(); transfer.items.add(new File([${JSON.stringify(text)}], ${JSON.stringify(name)}, { type: 'application/json' })); return transfer; })()`,
    );
    await zone.dispatchEvent('dragover', { dataTransfer });
    await zone.dispatchEvent('drop', { dataTransfer });
  }

  async function assistantNames(): Promise<string[]> {
    const response = await request(server, 'GET', '/api/assistants?limit=50', { token: owner.token });
    return (response.body.items as Array<{ name: string }>).map((item) => item.name);
  }

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    owner = await createUser(server, await loginAsAdmin(server), { email: 'owner@merino.test', role: 'creator' });
    const created = await request(server, 'POST', '/api/assistants', {
      token: owner.token,
      body: {
        name: 'Course helper',
        description: 'Answers about the course',
        system_prompt: 'Be brief.',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'bypass',
          llm: 'simple-bypass',
          tools: [{ type: 'simple_rag', enabled: true, config: { collections: ['1'] } }],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
  });

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it("downloads LAMB's export file from Export", async () => {
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, owner.email, owner.password);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export Course helper' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Course_helper.json');
    exported = JSON.parse(readFileSync(await download.path(), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(exported)).toEqual(expect.arrayContaining([...LAMB_ROW_KEYS, 'merino_export_version']));
    expect(exported).toMatchObject({ name: 'Course helper', owner: 'owner@merino.test', system_prompt: 'Be brief.', published: false });
    expect(JSON.parse(exported.metadata as string)).toMatchObject({ assistant_type: 'multi_tool' });
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('previews a dropped file with its tools and a missing knowledge base, then Confirm imports it and opens it', async () => {
    const metadata = JSON.parse(exported.metadata as string) as { tools: Array<{ config: Record<string, unknown> }> };
    metadata.tools[0]!.config.collections = [MISSING_KNOWLEDGE_BASE];
    const file = { ...exported, name: 'Imported helper', metadata: JSON.stringify(metadata), api_callback: JSON.stringify(metadata) };
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, owner.email, owner.password);
    await dropFile(page, 'helper.json', JSON.stringify(file));

    const preview = page.getByRole('region', { name: 'Preview of Imported helper' });
    await expect.poll(() => preview.count()).toBe(1);
    const text = await preview.innerText();
    expect(text).toContain('Multi-tool');
    expect(text).toContain('Answers about the course');
    expect(text).toContain('simple_rag');
    expect(text).toContain(`Knowledge base ${MISSING_KNOWLEDGE_BASE} does not exist here or you may not use it.`);
    expect(text).toContain('At metadata.tools[0].config.collections[0]');
    expect(await assistantNames()).not.toContain('Imported helper');
    await expectAccessible(page);
    await screenshot(page, 'assistant-import-preview-light');

    await page.getByRole('button', { name: 'Confirm import' }).click();
    await page.waitForURL(/\/assistants\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split('/').pop());
    const stored = await request(server, 'GET', `/api/assistants/${id}`, { token: owner.token });
    expect(stored.status).toBe(200);
    expect(stored.body).toMatchObject({ name: 'Imported helper', published: false, owner: 'owner@merino.test' });
    expect(stored.body.metadata.tools[0].config.collections).toEqual([MISSING_KNOWLEDGE_BASE]);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('reads well in dark mode at 375 px', async () => {
    const { context, page, pageErrors } = await openPage(browser, { width: 375, colorScheme: 'dark' });
    await logInThroughPage(page, server.baseUrl, owner.email, owner.password);
    await dropFile(page, 'helper.json', JSON.stringify({ ...exported, name: 'Dark preview' }));
    await expect.poll(() => page.getByRole('region', { name: 'Preview of Dark preview' }).count()).toBe(1);
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    await expectAccessible(page);
    await screenshot(page, 'assistant-import-preview-dark-phone');
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it('tells at once that a file is not JSON, and creates nothing', async () => {
    const before = await assistantNames();
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, owner.email, owner.password);
    await page.getByText('Import an assistant').click();
    // The same control through the keyboard-usable file input instead of a drop.
    await page
      .getByLabel('Or choose an export file')
      .setInputFiles({ name: 'notes.json', mimeType: 'application/json', buffer: Buffer.from('not json') });
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('notes.json is not a JSON file');
    expect(await page.getByRole('button', { name: 'Confirm import' }).count()).toBe(0);
    expect(await assistantNames()).toEqual(before);
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
