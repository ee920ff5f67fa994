/**
 * Compiles `src/` once per test run, file by file with esbuild, for the tests that start Merino
 * as a child process (servers, workers, `merino <command>`). Starting each child through tsx
 * compiled some 900 modules again every time, about a second per process; the compiled copy is
 * the same code, laid out as `src/` is (plugins and the document worker are found next to it),
 * inside the repository so that its packages resolve from `node_modules`.
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE = path.join(REPOSITORY, 'src');

export interface CompiledSource {
  /** The compiled `src/main.ts`. */
  main: string;
  remove(): Promise<void>;
}

async function sourceFiles(): Promise<string[]> {
  const entries = await readdir(SOURCE, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .filter((entry) => !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

export async function compileSource(): Promise<CompiledSource> {
  // One folder per run, so that two runs side by side never share or remove each other's copy.
  const parent = path.join(REPOSITORY, '.test-build');
  await mkdir(parent, { recursive: true });
  const directory = await mkdtemp(path.join(parent, 'run-'));
  await build({
    entryPoints: await sourceFiles(),
    outdir: directory,
    outbase: SOURCE,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  return {
    main: path.join(directory, 'main.js'),
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}
