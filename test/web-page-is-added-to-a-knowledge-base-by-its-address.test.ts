/**
 * Proves in a real Chromium that a teacher adds a web page to a knowledge base on its page by
 * typing its address into "Web page address": the page's row follows its indexing to the end and
 * the "Documents" table lists it; a page the server refuses (here one robots.txt forbids) shows the
 * reason under the field and adds nothing. The page passes axe-core and fits at 375 px.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWebSite, type FakeWebSite } from './fakes/fake-web-site-server.js';
import { expectAccessible, launchBrowser, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { expectAddressIndexed, expectAddressRefused, openWebAddressField } from './support/web-address-field.js';
import { startWebSourceKnowledgeBase, type WebSourceKnowledgeBase } from './support/web-source-knowledge-base.js';

describe('adding a web page on the knowledge base page', () => {
  let site: FakeWebSite;
  let world: WebSourceKnowledgeBase;
  let browser: Browser;

  beforeAll(async () => {
    site = await startFakeWebSite({ hugeBytes: 1_024 });
    world = await startWebSourceKnowledgeBase('sqlite', {
      teacherEmail: 'web-pages@merino.test',
      knowledgeBase: { name: 'Biology reading' },
    });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(world)?.server.close();
    await possiblyUnset(site)?.close();
  });

  it('adds a page by its address and shows why another is refused', async () => {
    const field = await openWebAddressField(browser, world);
    const { page, context, pageErrors } = field;

    await expectAddressRefused(field, `${site.origin}/members/grades`, 'asks robots not to read this page');
    await expectAddressIndexed(field, {
      url: `${site.origin}/articles/water-cycle`,
      title: 'The water cycle – Open Science Notes',
      fileName: 'The-water-cycle-Open-Science-Notes.md',
    });

    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'knowledge-base-web-page-added');
    await page.setViewportSize({ width: 1280, height: 900 });
    await expectAccessible(page);
    await screenshot(page, 'knowledge-base-web-page-added-wide');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
