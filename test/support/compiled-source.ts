/**
 * Compiles `src/` once per test run, file by file with esbuild, for the tests that start Merino
 * as a child process (servers, workers, `merino <command>`). Starting each child through tsx
 * compiled some 900 modules again every time, about a second per process; the compiled copy is
 * the same code, laid out as `src/` is (plugins and the document worker are found next to it),
 * inside the repository so that its other packages resolve from `node_modules`.
 *
 * Kysely alone is bundled into one file of the copy (`vendor/kysely.js`), which every compiled
 * module imports instead of the package: its 288 ES modules cost each child about 300 ms of CPU to
 * load, one file about 50 ms, and a run of the suite starts some two hundred children. It is the
 * same code, and one file for all, so every module shares one Kysely. Only Kysely: it is pure ES
 * modules with no files of its own to find at run time, and nothing else in `node_modules` imports
 * it.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const REPOSITORY = fileURLToPath(new URL('../../', import.meta.url));
const SOURCE = path.join(REPOSITORY, 'src');
/** How esbuild writes a static import of the package (src imports it no other way). */
const KYSELY_IMPORT = 'from "kysely";';

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

/**
 * A compiled module's text with its imports of `kysely` pointed at the bundled copy. Any other way
 * of naming the package would load a second Kysely beside it, so it stops the build.
 */
function withVendorKysely(file: string, text: string, vendorKysely: string): string {
  const pointed = text.replaceAll(KYSELY_IMPORT, `from ${JSON.stringify(vendorKysely)};`);
  if (/["']kysely(\/|["'])/.test(pointed)) throw new Error(`${file} names kysely other than as a static import of the package`);
  return pointed;
}

export async function compileSource(): Promise<CompiledSource> {
  // One folder per run, so that two runs side by side never share or remove each other's copy.
  const parent = path.join(REPOSITORY, '.test-build');
  await mkdir(parent, { recursive: true });
  const directory = await mkdtemp(path.join(parent, 'run-'));
  const vendorKysely = path.join(directory, 'vendor', 'kysely.js');
  await build({
    entryPoints: [path.join(REPOSITORY, 'node_modules', 'kysely', 'dist', 'esm', 'index.js')],
    outfile: vendorKysely,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  const compiled = await build({
    entryPoints: await sourceFiles(),
    outdir: directory,
    outbase: SOURCE,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    write: false,
  });
  const vendorUrl = pathToFileURL(vendorKysely).href;
  for (const file of compiled.outputFiles) {
    await mkdir(path.dirname(file.path), { recursive: true });
    await writeFile(file.path, withVendorKysely(file.path, file.text, vendorUrl));
  }
  return {
    main: path.join(directory, 'main.js'),
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}
