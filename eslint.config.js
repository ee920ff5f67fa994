// ESLint: typescript-eslint's strict type-checked rules where they catch real mistakes (floating
// promises, unsafe `any`, needless conditions, unused code), none of the stylistic ones: Prettier
// owns layout. Each rule turned off or loosened below says why.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import svelte from 'eslint-plugin-svelte';
import svelteConfig from './web/svelte.config.js';

/** The files allowed past 400 lines, each with its reason; a file leaves this list once it is split. */
const FILES_PAST_THE_LINE_LIMIT = {
  'src/config/settings-declarations.ts': 'one table of every setting, each with its variable, meaning, default and range',
  'src/store/schema.ts': "one declaration of every table's row types, which Kysely reads as one Database interface",
  'src/text-tool-calls/format-samples.ts': "sample outputs of every engine's tool-call format: data, not logic",
  'src/auth/permissions.ts': 'the one module that decides every access (DESIGN §2), kept whole so every rule is read together',
  'src/store/ingestion-jobs-repository.ts': 'the documents and jobs tables, which change together; to be split with the knowledge folder',
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'data/',
      'coverage/',
      'reports/',
      '.stryker-tmp/',
      'web/build/',
      'web/.svelte-kit/',
      'web/src/lib/api/generated/',
      // Sources compiled for one test run's child processes; a run stopped mid-way leaves one behind.
      '.test-build/',
      // A session's scratch files (profiling configs, one-off scripts), ignored by git too.
      '**/*.scratch.*',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...svelte.configs.recommended,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Numbers and booleans read naturally in messages; objects and undefined are still refused.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true }],
      // With noUncheckedIndexedAccess, `text[index]!` after a bounds check is the honest spelling.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // An async function without await still turns a throw into a rejection, which callers rely on.
      '@typescript-eslint/require-await': 'off',
      // `() => void signal.abort()` style arrows are clear; statements returning void are still checked.
      '@typescript-eslint/no-confusing-void-expression': ['error', { ignoreArrowShorthand: true }],
      // Merino refuses and strips control characters on purpose; a regex naming them is the point.
      'no-control-regex': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Merino declares no enums (its codes and kinds are string unions, which schemas can state), and
      // a syntax rule keeps it so. The type-checked enum rule then has only libraries' enums to guard,
      // and it cost about a sixth of lint's time: `eslint .` took 178 s without it against 214 and
      // 262 s with it (docs/testing.md).
      'no-restricted-syntax': ['error', { selector: 'TSEnumDeclaration', message: 'Use a union of string literals, not an enum.' }],
      '@typescript-eslint/no-unsafe-enum-assignment': 'off',
    },
  },
  {
    // The web app's components: typed like the rest, through web/tsconfig.json (made by svelte-kit sync).
    files: ['web/**/*.svelte', 'web/**/*.svelte.ts'],
    languageOptions: {
      parserOptions: { projectService: true, extraFileExtensions: ['.svelte'], parser: tseslint.parser, svelteConfig },
      globals: { document: 'readonly', window: 'readonly', location: 'readonly', navigator: 'readonly' },
    },
  },
  {
    files: ['web/**'],
    rules: {
      // resolve() prefixes a base path; the app is always served at the server's root, so links are plain paths.
      'svelte/no-navigation-without-resolve': 'off',
    },
  },
  {
    // Tests read JSON bodies and SDK results, which are `any` by nature; asserting on them is the point.
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    // Plain-JavaScript configs and scripts belong to no tsconfig project, so they get the rules that
    // need no types. vitest.mutation.config.ts is TypeScript, but it imports the mutation scripts,
    // which are plain JavaScript without declarations, so it stays out of the typed project too.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs', 'vitest.mutation.config.ts'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', module: 'writable', require: 'readonly', URL: 'readonly' } },
  },
  {
    // CONTRIBUTING.md: past four parameters a function takes one options object, and a source file
    // holds one concept in at most 400 lines. Tests are left out: a suite is as long as its cases.
    files: ['src/**/*.ts', 'web/src/**/*.ts', 'web/src/**/*.svelte'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-params': ['error', 4], 'max-lines': ['error', { max: 400 }] },
  },
  ...Object.entries(FILES_PAST_THE_LINE_LIMIT).map(([file, reason]) => ({
    name: `past the line limit: ${reason}`,
    files: [file],
    rules: { 'max-lines': 'off' },
  })),
  {
    // CommonJS is how dependency-cruiser reads its configuration, and require() is how CommonJS imports.
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
