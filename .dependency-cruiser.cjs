/**
 * The layer rule of DESIGN.md §2 and §6, checked by `npm test` (npm run layers):
 *
 *   http  →  services  →  plugins  →  pipeline core  →  errors/, validation/
 *              ↓    ↘                       ↓
 *       infrastructure   document-reading   text-tool-calls   (the libraries)
 *
 * Which folder is in which layer is the table in layer-table.cjs; a folder it does not name stops
 * the check.
 *
 * An arrow is "may import". Nothing imports upwards, no folder takes part in a cycle, plugins see
 * the core only through its plugin API, and each library (the text tool-call parser, document
 * reading) imports nothing of Merino but its own folder.
 * src/process/ (the composition layer) is start-up work beside src/main.ts: only main.ts imports it.
 * Test files may reach into anything they test, so they are left out of the check.
 */
const path = require('node:path');
const { LAYER_TABLE, foldersWithoutLayer } = require('./layer-table.cjs');

const unplaced = foldersWithoutLayer(path.join(process.cwd(), 'src'));
if (unplaced.length > 0) {
  throw new Error(`${unplaced.join(', ')} belong(s) to no layer: name each in LAYER_TABLE in layer-table.cjs.`);
}

/** The path pattern of a layer's folders, for the rules below. */
function layer(name) {
  return `^src/(${LAYER_TABLE[name].join('|')})/`;
}

const FOUNDATION = layer('foundation');
const CORE = layer('core');
const TEXT_TOOL_CALLS = '^src/text-tool-calls/';
const DOCUMENT_READING = '^src/document-reading/';
const TEXT_TRIMMING = '^src/text-trimming/';
const PLUGINS = layer('plugins');
const INFRASTRUCTURE = layer('infrastructure');
const STORE = '^src/store/';
const HTTP = layer('http');
const COMPOSITION = '^src/[^/]+\\.ts$';
const SERVICE_CONTAINER = '^src/services\\.ts$';
const PROCESS = layer('composition');

module.exports = {
  forbidden: [
    {
      name: 'web-app-reaches-the-server-only-over-http',
      comment: 'The web app (web/) is a separate program in the browser: it calls the API, never imports server code.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^src/' },
    },
    {
      name: 'server-imports-nothing-of-the-web-app',
      comment: 'The server serves the built app as files; its code does not depend on the app.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^web/' },
    },
    {
      name: 'no-folder-cycle',
      comment: 'Folders form layers; a cycle between two folders means neither is below the other.',
      severity: 'error',
      scope: 'folder',
      from: {},
      to: { circular: true },
    },
    {
      name: 'foundation-imports-only-itself',
      comment: 'errors/ and validation/ sit under everything and import nothing else of Merino.',
      severity: 'error',
      from: { path: FOUNDATION },
      to: { path: '^src/', pathNot: FOUNDATION },
    },
    {
      name: 'library-imports-nothing-of-merino',
      comment: 'The text tool-call parser is a self-contained library.',
      severity: 'error',
      from: { path: TEXT_TOOL_CALLS },
      to: { path: '^src/', pathNot: TEXT_TOOL_CALLS },
    },
    {
      name: 'library-has-one-entry-file',
      comment: 'Merino uses the text tool-call parser through src/text-tool-calls/index.ts only.',
      severity: 'error',
      from: { path: '^src/', pathNot: TEXT_TOOL_CALLS },
      to: { path: TEXT_TOOL_CALLS, pathNot: '^src/text-tool-calls/index\\.ts$' },
    },
    {
      name: 'document-reading-imports-nothing-of-merino',
      comment:
        'Document reading (type detection, extraction, chunking) is a self-contained library: it refuses a document with its own DocumentReadingError, which the services turn into an AppError. It shares only the linear trimming helpers, a library of their own.',
      severity: 'error',
      from: { path: DOCUMENT_READING },
      to: { path: '^src/', pathNot: [DOCUMENT_READING, TEXT_TRIMMING] },
    },
    {
      name: 'text-trimming-imports-nothing-of-merino',
      comment: 'The linear trimming helpers are a library every layer may use, so they import nothing of Merino.',
      severity: 'error',
      from: { path: TEXT_TRIMMING },
      to: { path: '^src/', pathNot: TEXT_TRIMMING },
    },
    {
      name: 'core-imports-only-core-and-foundation',
      comment: 'The pipeline core knows nothing of HTTP, SQL, services or plugins (DESIGN §2).',
      severity: 'error',
      from: { path: CORE },
      to: { path: '^src/', pathNot: [CORE, FOUNDATION, TEXT_TRIMMING, '^src/text-tool-calls/index\\.ts$'] },
    },
    {
      name: 'plugins-see-the-core-through-its-plugin-api',
      comment: 'A plugin imports src/pipeline/plugin-api.ts and nothing else from the core.',
      severity: 'error',
      from: { path: PLUGINS },
      to: { path: CORE, pathNot: '^src/pipeline/plugin-api\\.ts$' },
    },
    {
      name: 'plugins-import-no-service',
      comment: 'Plugins sit below the services: they reach them only through the ports the core hands them.',
      severity: 'error',
      from: { path: PLUGINS },
      to: { path: '^src/', pathNot: [PLUGINS, CORE, FOUNDATION, TEXT_TRIMMING] },
    },
    {
      name: 'infrastructure-imports-no-service',
      comment:
        'Infrastructure (the store, blob storage, outbound requests, secrets, scheduling, settings) sits below the services and the plugins; it may implement a port the core declares.',
      severity: 'error',
      from: { path: INFRASTRUCTURE },
      to: { path: '^src/', pathNot: [INFRASTRUCTURE, CORE, FOUNDATION, TEXT_TRIMMING] },
    },
    {
      name: 'store-sits-below-the-services',
      comment: 'Repositories import nothing from services, plugins, the core or HTTP.',
      severity: 'error',
      from: { path: STORE },
      to: { path: '^src/', pathNot: [STORE, FOUNDATION] },
    },
    {
      name: 'only-http-and-start-up-import-http',
      comment: 'Services know nothing of HTTP; start-up (main.ts and src/process/, which builds the server) does.',
      severity: 'error',
      from: { path: '^src/', pathNot: [HTTP, COMPOSITION, '^src/process/'] },
      to: { path: HTTP },
    },
    {
      name: 'routes-reach-the-store-through-services',
      comment: 'Routes are thin: they call services, which own every query.',
      severity: 'error',
      from: { path: HTTP },
      to: { path: STORE },
    },
    {
      name: 'nothing-imports-start-up',
      comment: 'The files at the top of src/ start and compose Merino; nothing below may depend on them.',
      severity: 'error',
      from: { path: '^src/.+/' },
      to: { path: COMPOSITION, pathNot: SERVICE_CONTAINER },
    },
    {
      name: 'only-http-sees-the-service-container',
      comment: 'Routes (and the start-up work in src/process/) receive the composed services; services receive what they need one by one.',
      severity: 'error',
      from: { path: '^src/.+/', pathNot: [HTTP, PROCESS] },
      to: { path: SERVICE_CONTAINER },
    },
    {
      name: 'only-start-up-imports-the-process-files',
      comment:
        'src/process/ holds what src/main.ts does to the process (signals, heap, crash leftovers); it sits beside start-up, so nothing else imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: ['^src/main\\.ts$', PROCESS] },
      to: { path: PROCESS },
    },
    {
      name: 'no-unresolvable-import',
      severity: 'error',
      from: {},
      // $app/* are modules SvelteKit makes while building the web app; they exist in no folder.
      to: { couldNotResolve: true, pathNot: '^\\$app/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(\\.test\\.ts$|^src/.*/__fixtures__/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.svelte'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
