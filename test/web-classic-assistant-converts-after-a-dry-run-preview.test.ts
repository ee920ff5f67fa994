/**
 * Proves in a real Chromium that converting a classic assistant goes through a preview: "Convert to
 * multi-tool" shows the classic settings beside the multi-tool metadata and template with the
 * migration log line, and creates nothing (the API's count is unchanged); "Create multi-tool copy"
 * then creates "<name> (multi-tool)" and opens it, leaving the classic assistant as it was. A
 * classic assistant the server cannot convert shows the server's reason. The preview passes
 * axe-core at 1280 px light and 375 px dark without horizontal overflow.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { expectAccessible, expectOneHeading, launchBrowser, logInThroughPage, openPage, screenshot } from './support/browser.js';
import { horizontalOverflow, waitForHeading } from './support/page-checks.js';

/** An assistant as the API answers with it; the test compares it whole. */
interface StoredAssistant {
  id: number;
  [field: string]: unknown;
}

describe('converting a classic assistant in the web app', () => {
  let server: TestServer;
  let browser: Browser;
  let creator: CreatedUser;
  let knowledgeBaseId: string;

  async function classicAssistant(name: string, collections: string[]): Promise<StoredAssistant> {
    const created = await request(server, 'POST', '/api/assistants', {
      token: creator.token,
      body: {
        name,
        prompt_template: 'Use {context} to answer {user_input}',
        rag_collections: collections,
        rag_top_k: 4,
        metadata: { rag_processor: 'simple_rag', connector: 'openai', llm: 'gpt-4o-mini', prompt_processor: 'simple_augment' },
      },
    });
    expect(created.status).toBe(201);
    return created.body as StoredAssistant;
  }

  async function assistantCount(): Promise<number> {
    return (await request(server, 'GET', '/api/assistants', { token: creator.token })).body.total as number;
  }

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    browser = await launchBrowser();
    creator = await createUser(server, await loginAsAdmin(server), { email: 'converter@school.test', role: 'creator' });
    knowledgeBaseId = String(
      (await request(server, 'POST', '/api/knowledge-bases', { token: creator.token, body: { name: 'Notes' } })).body.id,
    );
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await server.close();
  });

  it('previews both sides, creates nothing until confirmed, then opens the multi-tool copy', async () => {
    const classic = await classicAssistant('Physics tutor', [knowledgeBaseId]);
    const { context, page, pageErrors } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, creator.email, creator.password);
    const before = await assistantCount();
    await page.goto(`${server.baseUrl}/assistants/${classic.id}`);
    await waitForHeading(page, 'Physics tutor');
    await expectOneHeading(page, 'Physics tutor');
    await page.getByRole('button', { name: 'Convert to multi-tool' }).click();

    const classicSide = page.getByRole('region', { name: 'Classic settings now' });
    const multiToolSide = page.getByRole('region', { name: 'The multi-tool copy' });
    await expect.poll(() => classicSide.innerText()).toContain('"rag_processor": "simple_rag"');
    expect(await classicSide.innerText()).toContain('Use {context} to answer {user_input}');
    const multiTool = await multiToolSide.innerText();
    expect(multiTool).toContain('"assistant_type": "multi_tool"');
    expect(multiTool).toContain('"type": "simple_rag"');
    expect(multiTool).toContain('"prompt_processor": "multi_augment"');
    expect(await page.getByText(`Migrated assistant ${classic.id} from v1 to v2`).count()).toBe(1);
    expect(await assistantCount()).toBe(before);
    await expectAccessible(page);
    await screenshot(page, 'assistant-conversion-preview-1280-light');

    await page.setViewportSize({ width: 375, height: 800 });
    await page.emulateMedia({ colorScheme: 'dark' });
    await expectAccessible(page);
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await screenshot(page, 'assistant-conversion-preview-375-dark');

    await page.getByRole('button', { name: 'Create multi-tool copy' }).click();
    await page.waitForURL((url) => /\/assistants\/\d+$/.test(url.pathname) && !url.pathname.endsWith(`/${classic.id}`));
    await waitForHeading(page, 'Physics tutor (multi-tool)');
    await expectOneHeading(page, 'Physics tutor (multi-tool)');
    expect(await assistantCount()).toBe(before + 1);
    const copyId = Number(new URL(page.url()).pathname.split('/').pop());
    const copy = await request(server, 'GET', `/api/assistants/${copyId}`, { token: creator.token });
    expect(copy.body).toMatchObject({ name: 'Physics tutor (multi-tool)', assistant_type: 'multi_tool' });
    const after = await request(server, 'GET', `/api/assistants/${classic.id}`, { token: creator.token });
    expect(after.body).toEqual(classic);
    // A multi-tool assistant offers no conversion.
    expect(await page.getByRole('button', { name: 'Convert to multi-tool' }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
    await context.close();
  });

  it("shows the server's reason when the assistant cannot be converted", async () => {
    const classic = await classicAssistant('Nothing to search', []);
    const { context, page } = await openPage(browser);
    await logInThroughPage(page, server.baseUrl, creator.email, creator.password);
    const before = await assistantCount();
    await page.goto(`${server.baseUrl}/assistants/${classic.id}`);
    await page.getByRole('button', { name: 'Convert to multi-tool' }).click();
    await expect.poll(() => page.getByRole('alert').allInnerTexts()).toEqual([expect.stringMatching(/collection|knowledge/i)]);
    expect(await page.getByRole('button', { name: 'Create multi-tool copy' }).count()).toBe(0);
    expect(await assistantCount()).toBe(before);
    await context.close();
  });
});
