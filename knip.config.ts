/**
 * knip's map of the project (`npm run knip`): which files start a program, so that it can report
 * files nothing reaches, exports nothing imports and dependencies nothing uses. Most entry points
 * are reached through no import at all, so they are named here.
 */
import type { KnipConfig } from 'knip';

const configuration: KnipConfig = {
  entry: [
    // What plugins may use of the core; plugins in PLUGINS_DIR, outside this tree, import it too.
    'src/pipeline/plugin-api.ts',
    // Plugins are discovered at run time by listing their folders, never imported by name.
    'src/tools/*.ts',
    'src/connectors/*.ts',
    'src/prompt-processors/*.ts',
    // Started as a worker thread by URL (document-worker.ts).
    'src/ingestion/document-worker-thread.ts',
    // Started as child processes or worker threads by URL from tests.
    'test/support/unhandled-errors-script.ts',
    'test/support/write-load-worker.ts',
    // The gateway comparison's mock provider, started as a child process by bench/gateway-comparison.ts.
    'bench/support/mock-openai-server.ts',
    'scripts/*.mjs',
    // npm run generate:api, which the staleness test also imports.
    'scripts/*.ts',
    // The web app: SvelteKit finds its pages, layouts and configs by name.
    'web/src/routes/**/+*.{svelte,ts}',
    'web/svelte.config.js',
    'web/vite.config.ts',
  ],
  project: [
    'src/**/*.ts',
    'test/**/*.ts',
    'bench/**/*.ts',
    'scripts/**/*.{mjs,ts}',
    '*.{js,cjs,mjs,ts}',
    'web/src/**/*.{ts,svelte}',
    'web/*.{js,ts}',
  ],
  // SvelteKit's aliases: $lib is the app's library folder; $app/* are modules SvelteKit makes at build time.
  paths: { '$lib/*': ['web/src/lib/*'] },
  ignoreUnresolved: ['^\\$app/'],
  // An export its own file uses is part of that file's story (a type its functions take, say).
  ignoreExportsUsedInFile: true,
  // Written by openapi-typescript (npm run generate:api): it declares every path, used or not.
  ignore: ['web/src/lib/api/generated/**'],
  // A system tool one test calls to make a named pipe, not a package.
  ignoreBinaries: ['mkfifo'],
  vitest: {
    config: ['vitest.config.ts', 'vitest.bench.config.ts', 'vitest.mutation.config.ts'],
    entry: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts', 'bench/**/*.bench.ts'],
  },
};

export default configuration;
