/**
 * Proves in a real Chromium that a teacher adds a YouTube video's captions to a knowledge base on
 * its page by typing the video's address into "Web page address": the transcript's row follows its
 * indexing to the end and the "Documents" table lists it; a video without captions in the language
 * shows the reason under the field and adds nothing. The page passes axe-core and fits at 375 px.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeYoutube, type FakeYoutube } from './fakes/fake-youtube-server.js';
import { expectAccessible, launchBrowser, screenshot } from './support/browser.js';
import { horizontalOverflow } from './support/page-checks.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { expectAddressIndexed, expectAddressRefused, openWebAddressField } from './support/web-address-field.js';
import { startWebSourceKnowledgeBase, type WebSourceKnowledgeBase } from './support/web-source-knowledge-base.js';

describe('adding a video on the knowledge base page', () => {
  let youtube: FakeYoutube;
  let world: WebSourceKnowledgeBase;
  let browser: Browser;

  beforeAll(async () => {
    youtube = await startFakeYoutube({ hugeBytes: 1_024 });
    world = await startWebSourceKnowledgeBase('sqlite', {
      teacherEmail: 'web-videos@merino.test',
      knowledgeBase: { name: 'Earth science' },
      environment: { YOUTUBE_BASE_URL: youtube.origin },
    });
    browser = await launchBrowser();
  }, 120_000);

  afterAll(async () => {
    await possiblyUnset(browser)?.close();
    await possiblyUnset(world)?.server.close();
    await possiblyUnset(youtube)?.close();
  });

  it("adds a YouTube video's captions by its address and shows why another is refused", async () => {
    const field = await openWebAddressField(browser, world);
    const { page, context, pageErrors } = field;
    await page.getByText('a YouTube address', { exact: false }).waitFor();

    await expectAddressRefused(field, 'https://www.youtube.com/watch?v=nocaptions1', 'This video has no captions');
    await expectAddressIndexed(field, {
      url: 'https://youtu.be/tectonics01',
      title: 'Plate tectonics in ten minutes (captions: English)',
      fileName: 'Plate-tectonics-in-ten-minutes-captions-English.vtt',
    });

    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'knowledge-base-video-added');
    expect(pageErrors).toEqual([]);
    await context.close();
  });
});
