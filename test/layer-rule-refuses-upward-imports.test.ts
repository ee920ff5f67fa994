/**
 * The layer rule (DESIGN §2, `.dependency-cruiser.cjs`) is only worth having if it fails: each case
 * builds a small tree with one forbidden import, cruises it with the project's own rule file, and
 * expects it to fail naming the rule. One case runs the very command `npm test` runs (`depcruise`,
 * a process of its own); the others call the cruiser's API in this process as that command does
 * (the rule file, the tree's tsconfig, the `err` report), since a process each cost about 2 s of
 * CPU to load the cruiser and TypeScript again. The real tree passing is `npm run layers` itself.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { cruise as cruiseApi } from 'dependency-cruiser';
import extractDepcruiseConfig from 'dependency-cruiser/config-utl/extract-depcruise-config';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const PROJECT = path.resolve(import.meta.dirname, '..');
const CRUISER = path.join(PROJECT, 'node_modules', '.bin', 'depcruise');
const RULES = path.join(PROJECT, '.dependency-cruiser.cjs');

/** Files every case starts from: one module per layer, each importing only what it may. */
const LAWFUL_TREE: Record<string, string> = {
  'src/errors/app-error.ts': 'export const code = 1;\n',
  'src/validation/create-ajv.ts': "import { code } from '../errors/app-error.js';\nexport const ajv = code;\n",
  'src/text-tool-calls/index.ts': "import { inner } from './inner.js';\nexport const parser = inner;\n",
  'src/text-tool-calls/inner.ts': 'export const inner = 1;\n',
  'src/pipeline/plugin-api.ts': "import { step } from './run.js';\nexport const api = step;\n",
  'src/pipeline/run.ts':
    "import { parser } from '../text-tool-calls/index.js';\nimport { ajv } from '../validation/create-ajv.js';\nexport const step = parser + ajv;\n",
  'src/tools/weather.ts': "import { api } from '../pipeline/plugin-api.js';\nexport default api;\n",
  'src/store/users-repository.ts': "import { code } from '../errors/app-error.js';\nexport const users = code;\n",
  'src/document-reading/extraction.ts': "import { chunk } from './chunking.js';\nexport const text = chunk;\n",
  'src/document-reading/chunking.ts': 'export const chunk = 1;\n',
  'src/auth/user-service.ts':
    "import { users } from '../store/users-repository.js';\nimport { step } from '../pipeline/run.js';\nimport { text } from '../document-reading/extraction.js';\nexport const service = users + step + text;\n",
  'src/services.ts': "import { service } from './auth/user-service.js';\nexport const services = service;\n",
  'src/http/routes.ts': "import { services } from '../services.js';\nexport const routes = services;\n",
  'src/process/crash-leftovers.ts': "import { services } from '../services.js';\nexport const sweep = services;\n",
  'src/main.ts':
    "import { routes } from './http/routes.js';\nimport { sweep } from './process/crash-leftovers.js';\nexport const main = routes + sweep;\n",
};

let workspace: string;

async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [file, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), content);
  }
}

interface CruiseResult {
  exitCode: number;
  report: string;
}

/** Writes a copy of the lawful tree changed by `changes`, with its tsconfig; resolves to its root. */
async function caseTree(name: string, changes: Record<string, string>): Promise<string> {
  const root = path.join(workspace, name);
  await writeTree(root, { ...LAWFUL_TREE, ...changes });
  await writeFile(
    path.join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
  );
  return root;
}

/** Runs the `depcruise` command on the case's tree, from its root, as `npm run layers` runs it. */
async function cruiseByCommand(name: string, changes: Record<string, string>): Promise<CruiseResult> {
  const root = await caseTree(name, changes);
  try {
    const { stdout } = await run(CRUISER, ['src', '--config', RULES, '--output-type', 'err'], { cwd: root });
    return { exitCode: 0, report: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { exitCode: failed.code, report: failed.stdout };
  }
}

/** The same cruise through the cruiser's API: the rule file, with the tree as base folder and its own tsconfig. */
async function cruise(name: string, changes: Record<string, string>): Promise<CruiseResult> {
  const root = await caseTree(name, changes);
  const tsConfigFile = path.join(root, 'tsconfig.json');
  const ruleSet = await extractDepcruiseConfig(RULES);
  ruleSet.options = { ...ruleSet.options, baseDir: root, tsConfig: { fileName: tsConfigFile } };
  const result = await cruiseApi(['src'], { ruleSet, validate: true, outputType: 'err' }, {}, { tsConfig: extractTSConfig(tsConfigFile) });
  // The `err` report is text; anything else would mean the options did not reach the cruiser.
  if (typeof result.output !== 'string') throw new Error('the cruiser gave no text report');
  return { exitCode: result.exitCode, report: result.output };
}

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), 'merino-layers-'));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe('the layer rule', () => {
  it('passes a tree where every module imports only what its layer may', async () => {
    const result = await cruise('lawful', {});
    expect(result.report).not.toMatch(/error/);
    expect(result.exitCode).toBe(0);
  });

  it('fails as the command npm test runs, naming the rule, and passes the lawful tree the same way', async () => {
    const lawful = await cruiseByCommand('lawful-by-command', {});
    expect(lawful.report).not.toMatch(/error/);
    expect(lawful.exitCode).toBe(0);
    const result = await cruiseByCommand('core-importing-http-by-command', {
      'src/pipeline/run.ts': "import { routes } from '../http/routes.js';\nexport const step = routes;\n",
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.report).toContain('error core-imports-only-core-and-foundation:');
  });

  it.each([
    [
      'the core importing HTTP',
      { 'src/pipeline/run.ts': "import { routes } from '../http/routes.js';\nexport const step = routes;\n" },
      'core-imports-only-core-and-foundation',
    ],
    [
      'the core importing the store',
      { 'src/pipeline/run.ts': "import { users } from '../store/users-repository.js';\nexport const step = users;\n" },
      'core-imports-only-core-and-foundation',
    ],
    [
      'a plugin importing a core file other than the plugin API',
      { 'src/tools/weather.ts': "import { step } from '../pipeline/run.js';\nexport default step;\n" },
      'plugins-see-the-core-through-its-plugin-api',
    ],
    [
      'a plugin importing a service',
      { 'src/tools/weather.ts': "import { service } from '../auth/user-service.js';\nexport default service;\n" },
      'plugins-import-no-service',
    ],
    [
      'the parser library importing Merino',
      { 'src/text-tool-calls/inner.ts': "import { code } from '../errors/app-error.js';\nexport const inner = code;\n" },
      'library-imports-nothing-of-merino',
    ],
    [
      'document reading importing Merino',
      { 'src/document-reading/chunking.ts': "import { code } from '../errors/app-error.js';\nexport const chunk = code;\n" },
      'document-reading-imports-nothing-of-merino',
    ],
    [
      'the core reaching past the library entry file',
      { 'src/pipeline/run.ts': "import { inner } from '../text-tool-calls/inner.js';\nexport const step = inner;\n" },
      'library-has-one-entry-file',
    ],
    [
      'the store importing a service',
      { 'src/store/users-repository.ts': "import { service } from '../auth/user-service.js';\nexport const users = service;\n" },
      'store-sits-below-the-services',
    ],
    [
      'a route importing the store',
      { 'src/http/routes.ts': "import { users } from '../store/users-repository.js';\nexport const routes = users;\n" },
      'routes-reach-the-store-through-services',
    ],
    [
      'a service importing HTTP',
      { 'src/auth/user-service.ts': "import { routes } from '../http/routes.js';\nexport const service = routes;\n" },
      'only-http-and-start-up-import-http',
    ],
    [
      'the foundation importing the core',
      { 'src/errors/app-error.ts': "import { step } from '../pipeline/run.js';\nexport const code = step;\n" },
      'foundation-imports-only-itself',
    ],
    [
      'a service importing the start-up work of src/process/',
      { 'src/auth/user-service.ts': "import { sweep } from '../process/crash-leftovers.js';\nexport const service = sweep;\n" },
      'only-start-up-imports-the-process-files',
    ],
    [
      'a plugin importing a file of a subfolder of the core',
      {
        'src/pipeline/conversation/events.ts': 'export const event = 1;\n',
        'src/tools/weather.ts': "import { event } from '../pipeline/conversation/events.js';\nexport default event;\n",
      },
      'plugins-see-the-core-through-its-plugin-api',
    ],
  ])('fails on %s, naming the rule', async (name, changes, rule) => {
    const result = await cruise(name.replaceAll(' ', '-'), changes);
    expect(result.exitCode).not.toBe(0);
    expect(result.report).toContain(`error ${rule}:`);
  });

  it('fails on two service folders importing each other', async () => {
    const result = await cruise('folder-cycle', {
      'src/auth/user-service.ts': "import { files } from '../files/file-service.js';\nexport const service = files;\n",
      'src/files/file-service.ts':
        "import { users } from '../store/users-repository.js';\nexport const files = users;\nexport const more = 1;\n",
      'src/files/file-view.ts': "import { service } from '../auth/user-service.js';\nexport const view = service;\n",
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.report).toContain('error no-folder-cycle:');
  });

  it('fails on two subfolders of one folder importing each other', async () => {
    const result = await cruise('subfolder-cycle', {
      'src/pipeline/conversation/events.ts': "import type { Port } from '../plugin-contract/ports.js';\nexport type Event = Port;\n",
      'src/pipeline/plugin-contract/ports.ts': "import type { Event } from '../conversation/events.js';\nexport type Port = Event | 1;\n",
      'src/pipeline/run.ts':
        "import type { Port } from './plugin-contract/ports.js';\nimport { parser } from '../text-tool-calls/index.js';\nexport const step: Port | number = parser;\n",
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.report).toContain('error no-folder-cycle:');
  });
});
