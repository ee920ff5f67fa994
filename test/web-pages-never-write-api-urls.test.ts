// Proves the web app's pages and components reach the API only through the typed area modules
// of web/src/lib/api (issue 28): no .svelte file, no .svelte.ts module and no page module
// (routes/**/+*.ts) calls fetch( or writes an API path, so every URL and every response type is
// chosen in one place, against the types generated from the server's OpenAPI document.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const WEB_SOURCE = 'web/src';

/** What only an area module may write: a fetch call or a path of the API (`$lib/api/…` imports are not paths). */
const FORBIDDEN = [/\bfetch\(/, /(?<![\w$])\/api\//, /(?<![\w$])\/lamb\/v1\//, /['"`]\/v1\//];

function isPageOrComponent(file: string): boolean {
  if (file.endsWith('.svelte') || file.endsWith('.svelte.ts')) return true;
  return file.split(path.sep).includes('routes') && /^\+[^/]*\.ts$/.test(path.basename(file));
}

async function filesUnder(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

describe('the pages and components of the web app', () => {
  it('write no fetch( and no API path: they call the area modules of web/src/lib/api', async () => {
    const files = (await filesUnder(WEB_SOURCE)).filter(isPageOrComponent);
    expect(files.length).toBeGreaterThan(20);
    const offenders: string[] = [];
    for (const file of files) {
      const lines = (await readFile(file, 'utf8')).split('\n');
      lines.forEach((line, index) => {
        if (FORBIDDEN.some((pattern) => pattern.test(line))) offenders.push(`${file}:${index + 1}: ${line.trim()}`);
      });
    }
    expect(offenders).toEqual([]);
  });
});
