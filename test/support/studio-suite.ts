/**
 * What the studio's browser suites share: a server and a Chromium for a describe block, with what
 * its forms need (a creator to sign in as, or a knowledge base for the tools manager's pickers),
 * and the multi-tool form on /assistants/new as the administrator opens it.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchBrowser, logInThroughPage, openPage, type OpenedPage, type PageOptions } from './browser.js';
import { possiblyUnset } from './possibly-unset.js';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  createUser,
  loginAsAdmin,
  request,
  startTestServer,
  type CreatedUser,
  type TestServer,
} from './test-server.js';

export interface StudioSuite {
  server: TestServer;
  browser: Browser;
}

/** Registers the describe block's beforeAll and afterAll; the fields are set once beforeAll has run. */
function studioSuite<Extra extends object>(prepare: (server: TestServer) => Promise<Extra>): StudioSuite & Extra {
  const suite = {} as StudioSuite & Extra;
  beforeAll(async () => {
    suite.server = await startTestServer('sqlite');
    suite.browser = await launchBrowser();
    Object.assign(suite, await prepare(suite.server));
  });
  afterAll(async () => {
    await possiblyUnset(suite.browser)?.close();
    await possiblyUnset(suite.server)?.close();
  });
  return suite;
}

export interface CreatorStudioSuite extends StudioSuite {
  creator: CreatedUser;
}

/** A studio suite with a creator of this email, who signs in through the login page. */
export function creatorStudioSuite(email: string): CreatorStudioSuite {
  return studioSuite(async (server) => ({ creator: await createUser(server, await loginAsAdmin(server), { email, role: 'creator' }) }));
}

export interface ToolsManagerSuite extends StudioSuite {
  adminToken: string;
  /** A knowledge base of the administrator's, for the tools' collection pickers. */
  knowledgeBaseId: number;
}

export function toolsManagerSuite(knowledgeBaseName: string): ToolsManagerSuite {
  return studioSuite(async (server) => {
    const adminToken = await loginAsAdmin(server);
    const knowledgeBase = await request(server, 'POST', '/api/knowledge-bases', { token: adminToken, body: { name: knowledgeBaseName } });
    expect(knowledgeBase.status, knowledgeBase.text).toBe(201);
    return { adminToken, knowledgeBaseId: knowledgeBase.body.id as number };
  });
}

/** Signs the administrator in and opens /assistants/new with "Multi-tool" chosen. */
export async function startMultiToolForm(page: Page, baseUrl: string): Promise<void> {
  await logInThroughPage(page, baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
  await page.goto(`${baseUrl}/assistants/new`);
  await page.getByLabel('Multi-tool', { exact: true }).check();
}

/** A fresh browser context signed in, through the login page, as the suite's creator. */
export async function creatorsPage(studio: CreatorStudioSuite, options: PageOptions = {}): Promise<OpenedPage> {
  const opened = await openPage(studio.browser, options);
  await logInThroughPage(opened.page, studio.server.baseUrl, studio.creator.email, studio.creator.password);
  return opened;
}
