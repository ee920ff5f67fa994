/**
 * A real headless Chromium (Debian's headless shell or full chromium, or MERINO_TEST_CHROMIUM)
 * driven by playwright-core, for the web app's end-to-end tests. Pages fail their test on any uncaught page error; `accessibilityViolations`
 * runs axe-core inside the page; `screenshot` keeps a PNG under reports/screenshots for people to look at.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Frame, type Page } from 'playwright-core';
import { expect, onTestFailed } from 'vitest';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/**
 * Debian's chromium-headless-shell is the build made for automation: the same Blink and V8 without
 * the browser's own interface. A browser test file costs a fifth to a quarter less CPU with it
 * than with the full chromium in headless mode (docs/testing.md), so it is preferred when installed.
 */
const CHROMIUM_BINARIES = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'] as const;
const SCREENSHOT_FOLDER = path.resolve('reports/screenshots');
const require = createRequire(import.meta.url);

function chromiumBinary(): string {
  return process.env['MERINO_TEST_CHROMIUM'] ?? CHROMIUM_BINARIES.find((binary) => existsSync(binary)) ?? CHROMIUM_BINARIES[0];
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumBinary(), args: CHROMIUM_ARGS });
}

export interface PageOptions {
  /** 375 for a phone; the default is a laptop's 1280. */
  width?: number;
  colorScheme?: 'light' | 'dark';
  locale?: string;
  /** An IANA zone for the page's clock; the default is the machine's. */
  timezoneId?: string;
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors the page's scripts threw; a test expects none. */
  pageErrors: string[];
}

/** A fresh browser context (its own cookies) with one page at the server's origin. */
export async function openPage(browser: Browser, options: PageOptions = {}): Promise<OpenedPage> {
  const width = options.width ?? 1280;
  const context = await browser.newContext({
    viewport: { width, height: width < 600 ? 800 : 900 },
    colorScheme: options.colorScheme ?? 'light',
    locale: options.locale ?? 'en-US',
    ...(options.timezoneId === undefined ? {} : { timezoneId: options.timezoneId }),
    acceptDownloads: true,
  });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  reportPageWhenTheTestFails(page);
  return { context, page, pageErrors };
}

const API_RESPONSES_REPORTED = 12;
const PAGE_TEXT_REPORTED = 1_500;
/** A page whose scripts hang must not hang the report of its failure. */
const PAGE_TEXT_WAIT_MILLISECONDS = 2_000;

async function visibleText(page: Page): Promise<string> {
  const timedOut = new Promise<string>((resolve) => setTimeout(resolve, PAGE_TEXT_WAIT_MILLISECONDS, '(no answer from the page)').unref());
  const read = page.evaluate<string>('document.body.innerText').catch((error: unknown) => `(unreadable: ${String(error)})`);
  return Promise.race([read, timedOut]);
}

/**
 * A browser test that fails under load on CI says only which wait ran out. So a page opened in a
 * test keeps its last API answers (`/api/` and `/lamb/` paths: method, path, status; no bodies),
 * and if the test fails, the page's address, those answers and its visible text are added to the
 * test's error. Pages opened outside a test (in beforeAll) are not reported: Vitest attaches the
 * hook to a test only.
 */
function reportPageWhenTheTestFails(page: Page): void {
  const answers: string[] = [];
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (!url.pathname.startsWith('/api/') && !url.pathname.startsWith('/lamb/')) return;
    answers.push(`${response.request().method()} ${url.pathname} ${response.status()}`);
    if (answers.length > API_RESPONSES_REPORTED) answers.shift();
  });
  try {
    onTestFailed(async ({ task }) => {
      if (page.isClosed()) return;
      const text = await visibleText(page);
      const lines = [`The page: ${page.url()}`, 'Its last API answers:', ...answers, 'Its text:', text.slice(0, PAGE_TEXT_REPORTED)];
      const report = lines.join('\n');
      // Into the error itself, since CI's summary keeps the end of the output, where failures are listed.
      const error = task.result?.errors?.[0];
      if (error === undefined) console.error(report);
      else error.message = `${error.message}\n\n${report}`;
    });
  } catch {
    // Not inside a test.
  }
}

/** Logs in through the login page with the accessible names the app keeps stable, and waits for the user's home (assistants, or chat for learners). */
export async function logInThroughPage(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(/\/(assistants|chat)$/);
}

/**
 * Signs in without the login page: posts the credentials to /api/auth/login as the login page does,
 * and puts the session cookie that answer sets (merino_session, with its HttpOnly, Secure, SameSite
 * and Max-Age) into the browser context, so its next page opens signed in. For tests whose subject is
 * another page; the login page's own tests sign in through it (logInThroughPage).
 */
export async function signInWithSessionCookie(context: BrowserContext, baseUrl: string, email: string, password: string): Promise<void> {
  const response = await fetch(`${baseUrl}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  });
  if (response.status !== 200) throw new Error(`login of ${email} failed with ${response.status}: ${await response.text()}`);
  const setCookie = response.headers.getSetCookie().find((header) => header.startsWith('merino_session='));
  if (setCookie === undefined) throw new Error(`login of ${email} set no merino_session cookie`);
  const [pair = '', ...attributes] = setCookie.split(';').map((part) => part.trim());
  const attribute = (name: string) => attributes.find((part) => part.toLowerCase().startsWith(name.toLowerCase()));
  const maximumAge = Number(attribute('Max-Age=')?.slice('Max-Age='.length));
  const sameSite = attribute('SameSite=')?.slice('SameSite='.length);
  if (!Number.isFinite(maximumAge) || (sameSite !== 'Lax' && sameSite !== 'Strict' && sameSite !== 'None'))
    throw new Error(`the session cookie lacks a Max-Age or SameSite: ${setCookie}`);
  await context.addCookies([
    {
      name: 'merino_session',
      value: pair.slice('merino_session='.length),
      url: baseUrl,
      expires: Math.floor(Date.now() / 1000) + maximumAge,
      httpOnly: attribute('HttpOnly') !== undefined,
      secure: attribute('Secure') !== undefined,
      sameSite,
    },
  ]);
}

/** Opens the header's account menu (API keys, language, theme, "Log out"), as a person clicks it. */
export async function openAccountMenu(page: Page): Promise<void> {
  const toggle = page.getByRole('button', { name: /^Account and settings:/ });
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** Contexts that already give every new document axe-core as it starts. */
const contextsWithAxe = new WeakSet<BrowserContext>();

/**
 * Puts axe-core into the page unless it is there. Evaluating its 500 KB source through the
 * protocol took about 180 ms a scan (18.7 of the every-page sweep's 112 s alone), so a context
 * scanned once also gets it as an init script: each document it opens next compiles it as it
 * starts, and its scan skips the transfer. Init scripts, like evaluate, are not governed by the
 * page's Content-Security-Policy, and axe only defines `window.axe` until it is run.
 */
async function loadAxe(page: Page | Frame): Promise<void> {
  if (await page.evaluate<boolean>("typeof axe !== 'undefined'")) return;
  await page.evaluate(axeSource);
  const context = 'context' in page ? page.context() : page.page().context();
  if (contextsWithAxe.has(context)) return;
  contextsWithAxe.add(context);
  await context.addInitScript(axeSource);
}

/**
 * The serious and critical violations axe-core finds in the page as it is now. axe is evaluated
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern, so the
 * app's real policy stays in force while it is scanned.
 */
export async function accessibilityViolations(page: Page | Frame): Promise<string[]> {
  await loadAxe(page);
  // A string, not a function: the server's TypeScript program has no DOM types, and this runs in the page.
  const violations = await page.evaluate<AxeViolation[]>('axe.run(document).then((result) => result.violations)');
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.id} (${violation.impact}): ${violation.help} at ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}

export async function expectAccessible(page: Page | Frame): Promise<void> {
  expect(await accessibilityViolations(page)).toEqual([]);
}

/**
 * Keeps a full-page PNG as reports/screenshots/<name>.png, for people to look at. CI (`CI` set)
 * keeps none: nobody opens them there, and the 106 full-page captures took about 150 ms each
 * (16 of the every-page sweep's 112 s alone). `MERINO_TEST_SCREENSHOTS=1` keeps them anyway.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (process.env['CI'] && process.env['MERINO_TEST_SCREENSHOTS'] !== '1') return;
  mkdirSync(SCREENSHOT_FOLDER, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_FOLDER, `${name}.png`), fullPage: true });
}

/** Exactly one h1 on the page, with this text; polled as a whole, so the previous page's heading is waited out. */
export async function expectOneHeading(page: Page, name: string | RegExp): Promise<void> {
  const headings = page.locator('h1');
  await expect
    .poll(async () => {
      const count = await headings.count();
      return count === 1 ? headings.innerText() : `${count} h1 elements`;
    })
    .toMatch(name);
}
