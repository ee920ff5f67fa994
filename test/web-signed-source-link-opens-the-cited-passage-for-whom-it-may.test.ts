/**
 * Proves in a real Chromium that a signed source link (what a "Sources" block in Open WebUI links
 * to, `/sources/{token}`) opens a page of the web app showing the cited passage, marked, with its
 * neighbours, the document's name and its knowledge base, its text as text: for the learner it
 * names without signing in (the link alone speaks for them), and for a signed-in reader of the
 * knowledge base. The refused cases each say why: an ended link (410), an address that is not a
 * link, an altered link, and another signed-in learner. axe-core finds nothing serious or critical,
 * at 1280 and 375 px, and nothing overflows at 375 px.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectAccessible, expectOneHeading, openPage, screenshot } from './support/browser.js';
import { chatPageSuite, signedInPage } from './support/chat-pages.js';
import { horizontalOverflow } from './support/page-checks.js';
import { addSourcedAssistant } from './support/sourced-assistant.js';
import { createUser, type CreatedUser } from './support/test-server.js';

describe('a signed source link in the browser', () => {
  const suite = chatPageSuite();
  let teacher: CreatedUser;
  let otherLearner: CreatedUser;
  let grant: { userId: number; assistantId: number; knowledgeBaseId: number; documentId: number; chunkIndex: number };

  const linkOf = (token: string): string => `${suite.world.server.baseUrl}/sources/${token}`;
  const token = (now?: number): string => suite.world.server.services.sourceLinks.sign(grant, now);

  beforeAll(async () => {
    teacher = await createUser(suite.world.server, suite.world.adminToken, { email: 'source-teacher@merino.test', role: 'creator' });
    otherLearner = await createUser(suite.world.server, suite.world.adminToken, { email: 'other-learner@merino.test', role: 'learner' });
    const { assistantId } = await addSourcedAssistant(suite.world.server, teacher.token);
    const document = await suite.world.server.store.db
      .selectFrom('kb_documents')
      .select(['id', 'knowledge_base_id'])
      .where('file_name', '=', 'photosynthesis.md')
      .executeTakeFirstOrThrow();
    grant = {
      userId: suite.world.learner.id,
      assistantId,
      knowledgeBaseId: document.knowledge_base_id,
      documentId: document.id,
      chunkIndex: 1,
    };
  });

  it('opens the cited passage for the learner it names without signing in, at 1280 and 375 px', async () => {
    for (const width of [1280, 375]) {
      const { page, context, pageErrors } = await openPage(suite.browser, { width });
      await page.goto(linkOf(token()));
      await expectOneHeading(page, 'photosynthesis.md');
      expect(new URL(page.url()).pathname).toMatch(/^\/sources\//);
      await page.getByText('From the knowledge base Plants').waitFor();
      const cited = page.getByRole('region', { name: 'The cited passage' });
      await cited.waitFor();
      expect(await cited.innerText()).toMatch(/Passage 2 of 2/);
      expect(await page.locator('main .passage').count()).toBe(2);
      expect(await page.getByRole('link', { name: 'Log in' }).count()).toBe(0);
      expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
      await expectAccessible(page);
      await screenshot(page, `source-link-passage-${width}`);
      expect(pageErrors).toEqual([]);
      await context.close();
    }
  });

  it('opens for a signed-in reader of the knowledge base (its owner)', async () => {
    const { page, context } = await signedInPage(suite.browser, suite.world, teacher);
    await page.goto(linkOf(token()));
    await expectOneHeading(page, 'photosynthesis.md');
    await page.getByRole('region', { name: 'The cited passage' }).waitFor();
    await context.close();
  });

  it('says why it does not open: ended, not a link, altered, or another learner', async () => {
    const { page, context } = await openPage(suite.browser, { width: 375 });
    await page.goto(linkOf(token(Date.now() - 169 * 3_600_000)));
    await expectOneHeading(page, 'This link has ended');
    await page.getByText('Source links last a limited time.').waitFor();
    await expectAccessible(page);

    await page.goto(linkOf('not-a-link'));
    await expectOneHeading(page, 'This is not a source link');

    const parts = token().split('.');
    parts[4] = '0';
    await page.goto(linkOf(parts.join('.')));
    await expectOneHeading(page, 'This link does not open');
    await page.getByText('It was altered, or the person it was made for may no longer read this passage.').waitFor();
    expect(await page.getByRole('region', { name: 'The cited passage' }).count()).toBe(0);
    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await context.close();

    const signedIn = await signedInPage(suite.browser, suite.world, otherLearner);
    await signedIn.page.goto(linkOf(token()));
    await expectOneHeading(signedIn.page, 'This link does not open');
    await signedIn.page.getByText(/^It does not open for /).waitFor();
    expect(await signedIn.page.content()).not.toContain('Calvin cycle is the second stage');
    await expectAccessible(signedIn.page);
    await signedIn.context.close();
  });
});
