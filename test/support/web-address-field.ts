/**
 * The knowledge-base page's "Web page address" field, as a teacher uses it in Chromium to add a
 * source by its address: the page opened at a phone's width and signed in, and the field's two
 * outcomes, a refusal whose reason shows at the field, or a source whose indexing is followed to
 * its end and which the "Documents" table then lists.
 */
import type { Browser, Locator } from 'playwright-core';
import { expect } from 'vitest';
import { logInThroughPage, openPage, type OpenedPage } from './browser.js';
import type { WebSourceKnowledgeBase } from './web-source-knowledge-base.js';

export interface WebAddressField extends OpenedPage {
  address: Locator;
}

/** The teacher's knowledge-base page, 375 px wide. */
export async function openWebAddressField(browser: Browser, world: WebSourceKnowledgeBase): Promise<WebAddressField> {
  const opened = await openPage(browser, { width: 375 });
  await logInThroughPage(opened.page, world.server.baseUrl, world.teacher.email, world.teacher.password);
  await opened.page.goto(`${world.server.baseUrl}/knowledge-bases/${world.knowledgeBaseId}`);
  return { ...opened, address: opened.page.getByRole('textbox', { name: 'Web page address' }) };
}

/** Adds `url`, which the server refuses: `reason` shows and the field is marked invalid. */
export async function expectAddressRefused(field: WebAddressField, url: string, reason: string): Promise<void> {
  await field.address.fill(url);
  await field.page.getByRole('button', { name: 'Add web page' }).click();
  await field.page.getByText(reason, { exact: false }).waitFor();
  expect(await field.address.getAttribute('aria-invalid')).toBe('true');
}

export interface IndexedSource {
  url: string;
  /** The source's title, which names its indexing progress bar. */
  title: string;
  /** Its document's name in the "Documents" table, where it is the only one. */
  fileName: string;
}

/** Adds a source: its progress bar reaches 100, the field empties, and the table lists it alone. */
export async function expectAddressIndexed(field: WebAddressField, source: IndexedSource): Promise<void> {
  await field.address.fill(source.url);
  await field.page.getByRole('button', { name: 'Add web page' }).click();
  const progress = field.page.getByRole('progressbar', { name: `Indexing ${source.title}` });
  await progress.waitFor();
  await expect.poll(() => progress.getAttribute('aria-valuenow'), { timeout: 15_000 }).toBe('100');
  expect(await field.address.inputValue()).toBe('');
  const table = field.page.getByRole('table', { name: 'Documents' });
  await table.getByText(source.fileName).waitFor();
  expect(await table.getByRole('row').count()).toBe(2);
}
