/**
 * Serves the web app (`web/`, built to WEB_APP_DIR by `npm run build:web`) from the same server
 * as the API: its files as they are, hashed assets cached for a year, and for any other page URL
 * (`/assistants/7`, a bookmark, a reload) the fallback page `app.html`, where the app's router
 * takes over. Paths of the API and of the server's own pages never fall back: an unknown
 * `/api/...` stays a JSON 404.
 *
 * SvelteKit's fallback page starts the app with one inline script. The Content-Security-Policy
 * allows same-origin scripts only, so that page's policy also names the script's SHA-256, computed
 * here from the built file; no other inline script can run.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const FALLBACK_PAGE = 'app.html';
const SERVER_PATHS = ['/api', '/v1', '/lamb', '/lti', '/mcp', '/docs', '/openapi.json', '/healthz', '/readyz', '/status', '/_app'];
const SCRIPT_OPEN = '<script>';
const SCRIPT_CLOSE = '</script>';

export interface WebApp {
  html: string;
  scriptHashes: string[];
}

/** Reads the built app's fallback page; undefined when the app has not been built. */
export function loadWebApp(directory: string): WebApp | undefined {
  const pagePath = path.join(directory, FALLBACK_PAGE);
  if (!existsSync(pagePath)) return undefined;
  const html = readFileSync(pagePath, 'utf8');
  const scriptHashes = inlineScripts(html).map((script) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`);
  return { html, scriptHashes };
}

/** The bodies of the page's attribute-less inline scripts; a scan rather than a lazy regex, which backtracks quadratically. */
function inlineScripts(html: string): string[] {
  const scripts: string[] = [];
  let start = html.indexOf(SCRIPT_OPEN);
  while (start !== -1) {
    const bodyStart = start + SCRIPT_OPEN.length;
    const end = html.indexOf(SCRIPT_CLOSE, bodyStart);
    if (end === -1) break;
    scripts.push(html.slice(bodyStart, end));
    start = html.indexOf(SCRIPT_OPEN, end + SCRIPT_CLOSE.length);
  }
  return scripts;
}

function isServerPath(pathname: string): boolean {
  return SERVER_PATHS.some((prefix) => pathname === prefix || pathname.startsWith(`${prefix}/`) || pathname.startsWith(`${prefix}?`));
}

/** Whether a request that matched no route is a page of the app, to be answered with the fallback page. */
export function isAppPage(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  return !isServerPath(request.url);
}

function withScriptHashes(policy: string, hashes: string[]): string {
  return policy.replace(
    /(^|;)\s*script-src ([^;]*)/,
    (_whole, start: string, sources: string) => `${start}script-src ${sources} ${hashes.join(' ')}`,
  );
}

export function sendAppPage(reply: FastifyReply, webApp: WebApp): FastifyReply {
  const policy = reply.getHeader('content-security-policy');
  if (typeof policy === 'string') reply.header('content-security-policy', withScriptHashes(policy, webApp.scriptHashes));
  // The page names the current build's assets, so it must be fetched again after an upgrade.
  return reply.status(200).header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(webApp.html);
}

export async function registerWebAppFiles(app: FastifyInstance, directory: string): Promise<void> {
  await app.register(fastifyStatic, {
    root: directory,
    prefix: '/',
    index: false,
    wildcard: false,
    // The fallback page is served by sendAppPage, with its CSP hashes, never as a plain file.
    allowedPath: (pathname) => pathname !== `/${FALLBACK_PAGE}`,
    setHeaders: (fileReply, filePath) => {
      const immutable = filePath.includes(`${path.sep}_app${path.sep}immutable${path.sep}`);
      fileReply.header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
}
