/**
 * What a browser downloads to show `/assistants` and a new chat, `/chat/{assistantId}`: every JavaScript and CSS file the page loads
 * in a real Chromium (signed in, with a few assistants listed), each gzipped at level 9 as a
 * server would send it, summed per kind. Measuring the page as loaded, rather than reading the
 * build manifest, counts exactly the chunks the router fetches for that route.
 *
 *   npm run build:web && npm run bench -- bench/web-app-shipped-bytes.bench.ts
 *
 * Target (issue 13): at most 150 KB of gzipped JavaScript. It prints figures and never fails on them.
 * The chat page's KaTeX chunk (and its fonts) loads only for an answer with math, so it is not counted.
 */
import { gzipSync } from 'node:zlib';
import type { Page, Response } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ADMIN_EMAIL, ADMIN_PASSWORD, loginAsAdmin, request, startTestServer } from '../test/support/test-server.js';
import { launchBrowser, logInThroughPage, openPage } from '../test/support/browser.js';
import { printTable } from './support/measure.js';

interface Shipped {
  url: string;
  kind: 'js' | 'css';
  bytes: number;
  gzipped: number;
}

function kindOf(url: string, contentType: string): 'js' | 'css' | undefined {
  if (contentType.includes('javascript') || url.endsWith('.js')) return 'js';
  if (contentType.includes('css') || url.endsWith('.css')) return 'css';
  return undefined;
}

function kilobytes(bytes: number): string {
  return (bytes / 1024).toFixed(1);
}

async function shippedFor(page: Page, url: string): Promise<Shipped[]> {
  const shipped: Shipped[] = [];
  const reads: Promise<void>[] = [];
  const listener = (response: Response): void => {
    const kind = kindOf(response.url(), response.headers()['content-type'] ?? '');
    if (kind === undefined) return;
    reads.push(
      response.body().then((body) => {
        shipped.push({ url: new URL(response.url()).pathname, kind, bytes: body.length, gzipped: gzipSync(body, { level: 9 }).length });
      }),
    );
  };
  page.on('response', listener);
  // A fresh load of the page itself, as after a bookmark or reload (the browser's cache still answers, and is counted).
  await page.goto('about:blank');
  await page.goto(url, { waitUntil: 'networkidle' });
  await Promise.all(reads);
  page.off('response', listener);
  return [...new Map(shipped.map((file) => [file.url, file])).values()].sort((left, right) => right.gzipped - left.gzipped);
}

function printShipped(path: string, unique: Shipped[]): void {
  printTable(
    `Files ${path} loads (KB)`,
    [
      { label: 'file', width: 56 },
      { label: 'raw', width: 8 },
      { label: 'gzip', width: 8 },
    ],
    unique.map((file) => [file.url, kilobytes(file.bytes), kilobytes(file.gzipped)]),
  );
  const total = (kind: 'js' | 'css', field: 'bytes' | 'gzipped') =>
    unique.filter((file) => file.kind === kind).reduce((sum, file) => sum + file[field], 0);
  printTable(
    `Shipped for ${path} (KB; target: JS gzipped ≤ 150)`,
    [
      { label: 'kind', width: 10 },
      { label: 'files', width: 6 },
      { label: 'raw', width: 8 },
      { label: 'gzip', width: 8 },
    ],
    (['js', 'css'] as const).map((kind) => [
      kind,
      String(unique.filter((file) => file.kind === kind).length),
      kilobytes(total(kind, 'bytes')),
      kilobytes(total(kind, 'gzipped')),
    ]),
  );
}

describe('bytes shipped for /assistants and /chat/{assistantId}', () => {
  it('prints the gzipped JavaScript and CSS each page loads', async () => {
    const server = await startTestServer('sqlite');
    const browser = await launchBrowser();
    try {
      const token = await loginAsAdmin(server);
      const ids: number[] = [];
      for (const name of ['Essay coach', 'Lab safety', 'Statistics tutor']) {
        const created = await request(server, 'POST', '/api/assistants', { token, body: { name } });
        expect(created.status).toBe(201);
        ids.push(created.body.id as number);
      }
      const { page, context } = await openPage(browser);
      await logInThroughPage(page, server.baseUrl, ADMIN_EMAIL, ADMIN_PASSWORD);
      for (const path of ['/assistants', `/chat/${ids[0]}`]) {
        const unique = await shippedFor(page, `${server.baseUrl}${path}`);
        expect(unique.length).toBeGreaterThan(0);
        printShipped(path, unique);
      }
      await context.close();
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
