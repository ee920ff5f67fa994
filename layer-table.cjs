/**
 * The layer table: every folder of src/ and the layer it belongs to (DESIGN.md §2 and §6).
 * .dependency-cruiser.cjs builds its rules from it and stops `npm run layers` when a folder of
 * src/ is missing here, so no folder is bound only by the no-cycle rule. CONTRIBUTING.md and
 * docs/architecture.md name each folder in its layer; test/layer-table-names-every-source-folder.test.ts
 * checks them against this table.
 */
const { existsSync, readdirSync } = require('node:fs');

const LAYER_TABLE = {
  composition: ['process', 'commands'],
  http: ['http'],
  services: [
    'assistants',
    'auth',
    'chats',
    'completions',
    'evaluation',
    'files',
    'health',
    'ingestion',
    'insights',
    'knowledge',
    'lti',
    'mcp',
    'organizations',
    'retrieval',
    'rubrics',
    'templates',
    'usage',
  ],
  plugins: ['tools', 'prompt-processors', 'connectors', 'integrations'],
  infrastructure: ['blobs', 'config', 'outbound', 'scheduling', 'secrets', 'store'],
  core: ['pipeline'],
  library: ['document-reading', 'text-tool-calls', 'text-trimming'],
  foundation: ['caching', 'errors', 'validation'],
};

/** The folders of `sourceRoot` that the table does not name. */
function foldersWithoutLayer(sourceRoot) {
  if (!existsSync(sourceRoot)) return [];
  const named = new Set(Object.values(LAYER_TABLE).flat());
  return readdirSync(sourceRoot, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !named.has(entry.name))
    .map((entry) => `src/${entry.name}`);
}

module.exports = { LAYER_TABLE, foldersWithoutLayer };
