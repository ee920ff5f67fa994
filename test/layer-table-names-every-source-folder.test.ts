/**
 * Every folder of src/ belongs to a named layer (layer-table.cjs), so each is bound by its layer's
 * rules and not only by the no-cycle rule: a tree with a folder the table does not name fails the
 * same command `npm test` runs, naming the folder; and the layer tables in CONTRIBUTING.md and
 * docs/architecture.md say what the table says.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const PROJECT = path.resolve(import.meta.dirname, '..');
const CRUISER = path.join(PROJECT, 'node_modules', '.bin', 'depcruise');
const RULES = path.join(PROJECT, '.dependency-cruiser.cjs');
const { LAYER_TABLE, foldersWithoutLayer } = createRequire(import.meta.url)(path.join(PROJECT, 'layer-table.cjs')) as {
  LAYER_TABLE: Record<string, string[]>;
  foldersWithoutLayer: (sourceRoot: string) => string[];
};

let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'merino-layer-table-'));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** Runs the layer check on a tree of `files`; resolves to its exit code and everything it printed. */
async function cruise(name: string, files: Record<string, string>): Promise<{ exitCode: number; output: string }> {
  const root = path.join(workspace, name);
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), content);
  }
  await writeFile(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
  );
  try {
    const { stdout, stderr } = await run(CRUISER, ['src', '--config', RULES, '--output-type', 'err'], { cwd: root });
    return { exitCode: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { exitCode: failed.code, output: failed.stdout + failed.stderr };
  }
}

/** The rows between a document's layer-table markers, as layer → folders. */
function documentedLayers(markdown: string): Record<string, string[]> {
  const start = markdown.indexOf('<!-- layer-table');
  const end = markdown.indexOf('<!-- /layer-table -->');
  expect(start, 'the document has a layer-table block').toBeGreaterThanOrEqual(0);
  const rows = markdown
    .slice(start, end)
    .split('\n')
    .filter((line) => line.startsWith('|') && line.includes('`') && !line.includes('folders of'));
  return Object.fromEntries(
    rows.map((row) => {
      const [layer = '', folders = ''] = row.split('|').slice(1, 3);
      return [layer.trim(), [...folders.matchAll(/`([^`]+)`/g)].map((match) => match[1]!)];
    }),
  );
}

describe('the layer table', () => {
  it('names every folder of src/, each in one layer only', () => {
    expect(foldersWithoutLayer(path.join(PROJECT, 'src'))).toEqual([]);
    const folders = Object.values(LAYER_TABLE).flat();
    expect(new Set(folders).size).toBe(folders.length);
  });

  it('stops the layer check on a folder it does not name, naming the folder', async () => {
    const named = await cruise('named', { 'src/errors/app-error.ts': 'export const code = 1;\n' });
    expect(named.exitCode, named.output).toBe(0);
    const unnamed = await cruise('unnamed', {
      'src/errors/app-error.ts': 'export const code = 1;\n',
      'src/new-area/new-thing.ts': "import { code } from '../errors/app-error.js';\nexport const thing = code;\n",
    });
    expect(unnamed.exitCode).not.toBe(0);
    expect(unnamed.output).toContain('src/new-area belong(s) to no layer');
  });

  it('fails on infrastructure importing a service, naming the rule', async () => {
    const result = await cruise('infrastructure-to-service', {
      'src/errors/app-error.ts': 'export const code = 1;\n',
      'src/auth/user-service.ts': "import { code } from '../errors/app-error.js';\nexport const service = code;\n",
      'src/scheduling/periodic-work.ts': "import { service } from '../auth/user-service.js';\nexport const work = service;\n",
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toContain('error infrastructure-imports-no-service:');
  });

  it.each(['CONTRIBUTING.md', 'docs/architecture.md'])('is what %s lists', async (document) => {
    expect(documentedLayers(await readFile(path.join(PROJECT, document), 'utf8'))).toEqual(LAYER_TABLE);
  });
});
