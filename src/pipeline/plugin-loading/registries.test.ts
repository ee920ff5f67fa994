// Proves loadRegistries: the real plugin folders load with one log line each, broken plugin files in a temp folder are logged and skipped while valid ones load, helper and test files are ignored, and ToolRegistry resolves aliases and lists placeholders.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadRegistries, ToolRegistry, type PluginDirectories, type Registries } from './registries.js';
import { defineTool } from '../plugin-contract/tool-definition.js';

interface CollectedLog {
  info: string[];
  error: string[];
  log: { info(message: string): void; error(message: string): void };
}

function collectingLog(): CollectedLog {
  const info: string[] = [];
  const error: string[] = [];
  return { info, error, log: { info: (message) => info.push(message), error: (message) => error.push(message) } };
}

describe('loadRegistries on the real plugin folders', () => {
  let registries: Registries;
  const collected = collectingLog();

  beforeAll(async () => {
    registries = await loadRegistries(collected.log);
  });

  it('loads the built-in tools, prompt processors and connectors', () => {
    for (const tool of ['no_rag', 'single_file_rag']) expect(registries.tools.get(tool)?.name).toBe(tool);
    for (const name of ['simple_augment', 'multi_augment']) expect(registries.promptProcessors.get(name)?.name).toBe(name);
    for (const name of ['bypass', 'openai', 'ollama']) expect(registries.connectors.get(name)?.name).toBe(name);
  });

  it('logs exactly one "Loaded …" line for each built-in plugin and no failure', () => {
    const expected = [
      'Loaded tool: no_rag',
      'Loaded tool: single_file_rag',
      'Loaded prompt processor: simple_augment',
      'Loaded prompt processor: multi_augment',
      'Loaded connector: bypass',
      'Loaded connector: openai',
      'Loaded connector: ollama',
    ];
    for (const line of expected)
      expect(
        collected.info.filter((logged) => logged === line),
        line,
      ).toHaveLength(1);
    expect(collected.error).toEqual([]);
  });

  it('resolves the seed-001 aliases to the canonical tools', () => {
    expect(registries.tools.get('single_file')?.name).toBe('single_file_rag');
    expect(registries.tools.get('no_tool')?.name).toBe('no_rag');
    expect(registries.tools.get('no_such_tool')).toBeUndefined();
    expect(registries.tools.aliasesOf('single_file_rag')).toContain('single_file');
    expect(registries.tools.aliasesOf('no_rag')).toContain('no_tool');
  });

  it('lists the placeholders the built-in tools declare, not user_input', () => {
    const placeholders = registries.tools.placeholders();
    expect(placeholders.has('context')).toBe(true);
    expect(placeholders.has('file')).toBe(true);
    expect(placeholders.has('user_input')).toBe(false);
  });
});

const TOOL_FIELDS = `displayName: 'Test', description: 'A test plugin', category: 'test', version: '1.0'`;

/** Plugin files written to a temp folder: valid ones, broken ones, and files discovery must ignore. */
const PLUGIN_FILES: Record<keyof PluginDirectories, Record<string, string>> = {
  tools: {
    'good_context.mjs': `export default { name: 'good_context', ${TOOL_FIELDS}, aliases: ['goodie'], configSchema: { type: 'object' }, placeholder: 'good', provide: async () => ({ content: 'ok' }) };`,
    'good_function.js': `export default { name: 'good_function', ${TOOL_FIELDS}, configSchema: {}, function: { describe: () => ({ name: 'f', description: 'd' }), parameters: { type: 'object' }, call: async () => ({ content: 'called' }) } };`,
    'syntax_error.mjs': `export default { name: 'syntax_error', ${TOOL_FIELDS},, configSchema: {`,
    'no_default.mjs': `export const tool = { name: 'no_default', ${TOOL_FIELDS}, configSchema: {}, placeholder: 'x', provide: async () => ({ content: '' }) };`,
    'no_placeholder.mjs': `export default { name: 'no_placeholder', ${TOOL_FIELDS}, configSchema: {}, provide: async () => ({ content: '' }) };`,
    'bad_schema.mjs': `export default { name: 'bad_schema', ${TOOL_FIELDS}, configSchema: { type: 'nonsense' }, placeholder: 'bad', provide: async () => ({ content: '' }) };`,
    'dup_a.mjs': `export default { name: 'dup', ${TOOL_FIELDS}, configSchema: {}, placeholder: 'dup_a', provide: async () => ({ content: 'a' }) };`,
    'dup_b.mjs': `export default { name: 'dup', ${TOOL_FIELDS}, configSchema: {}, placeholder: 'dup_b', provide: async () => ({ content: 'b' }) };`,
    // Would load fine if discovery did not skip it, so its absence proves the skip.
    '_helper.js': `export default { name: 'helper_tool', ${TOOL_FIELDS}, configSchema: {}, placeholder: 'helper', provide: async () => ({ content: '' }) };`,
    'x.test.js': `export default { name: 'test_tool', ${TOOL_FIELDS}, configSchema: {}, placeholder: 'test', provide: async () => ({ content: '' }) };`,
    'types.d.ts': `this is not code at all {{{`,
    'README.md': `# not a plugin`,
  },
  promptProcessors: {
    'echo.mjs': `export default { name: 'echo', description: 'Returns the messages', process: (input) => [...input.messages] };`,
    'no_process.mjs': `export default { name: 'no_process', description: 'Forgot process' };`,
  },
  connectors: {
    'fake.js': `export default { name: 'fake', description: 'A fake', models: () => ['m'], async *complete() { yield { type: 'finish', finishReason: 'stop' }; } };`,
    'bad_name.mjs': `export default { name: 'Bad Name', description: 'x', models: () => [], async *complete() {} };`,
  },
};

describe('loadRegistries on a folder of broken and valid plugin files', () => {
  let root: string;
  let registries: Registries;
  const collected = collectingLog();

  beforeAll(async () => {
    root = await mkdtemp(path.join(os.tmpdir(), 'merino-registries-'));
    const directories: PluginDirectories = {
      tools: path.join(root, 'tools'),
      promptProcessors: path.join(root, 'prompt-processors'),
      connectors: path.join(root, 'connectors'),
    };
    for (const kind of Object.keys(PLUGIN_FILES) as (keyof PluginDirectories)[]) {
      await mkdir(directories[kind]);
      for (const [fileName, text] of Object.entries(PLUGIN_FILES[kind])) await writeFile(path.join(directories[kind], fileName), text);
    }
    registries = await loadRegistries(collected.log, directories);
  });

  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it('loads the valid plugins of every kind', () => {
    expect(registries.tools.list().map((tool) => tool.name)).toEqual(['dup', 'good_context', 'good_function']);
    expect([...registries.promptProcessors.keys()]).toEqual(['echo']);
    expect([...registries.connectors.keys()]).toEqual(['fake']);
    expect(collected.info.sort()).toEqual([
      'Loaded connector: fake',
      'Loaded prompt processor: echo',
      'Loaded tool: dup',
      'Loaded tool: good_context',
      'Loaded tool: good_function',
    ]);
  });

  it('logs a file with a syntax error and skips it', () => {
    expect(collected.error.filter((line) => line.startsWith('Failed to load tools/syntax_error.mjs: '))).toHaveLength(1);
    expect(registries.tools.get('syntax_error')).toBeUndefined();
  });

  it('logs a file without a default export and skips it', () => {
    expect(collected.error).toContain('Failed to load tools/no_default.mjs: the default export must be an object');
  });

  it('logs a context tool without a placeholder and skips it', () => {
    expect(collected.error).toContain('Failed to load tools/no_placeholder.mjs: "placeholder" must be a non-empty string');
    expect(registries.tools.get('no_placeholder')).toBeUndefined();
  });

  it('logs a tool whose configSchema is not valid JSON Schema and skips it', () => {
    const line = collected.error.find((logged) => logged.startsWith('Failed to load tools/bad_schema.mjs: '));
    expect(line).toMatch(/^Failed to load tools\/bad_schema\.mjs: "configSchema" is not valid JSON Schema: .+/);
    expect(registries.tools.get('bad_schema')).toBeUndefined();
  });

  it('keeps the first of two files defining the same name and logs the second', () => {
    expect(collected.error).toContain('Failed to load tools/dup_b.mjs: another file already defines tool "dup"');
    expect(registries.tools.get('dup')?.placeholder).toBe('dup_a');
  });

  it('logs an invalid prompt processor and connector with their folder names', () => {
    expect(collected.error).toContain('Failed to load prompt-processors/no_process.mjs: "process" must be a function');
    expect(collected.error.filter((line) => line.startsWith('Failed to load connectors/bad_name.mjs: "name" must match'))).toHaveLength(1);
  });

  it('logs exactly the broken files, one line each', () => {
    const failedFiles = collected.error.map((line) => /^Failed to load ([^:]+):/.exec(line)?.[1]).sort();
    expect(failedFiles).toEqual([
      'connectors/bad_name.mjs',
      'prompt-processors/no_process.mjs',
      'tools/bad_schema.mjs',
      'tools/dup_b.mjs',
      'tools/no_default.mjs',
      'tools/no_placeholder.mjs',
      'tools/syntax_error.mjs',
    ]);
  });

  it('skips _-prefixed helpers, test files, declaration files and non-code files silently', () => {
    const everything = [...collected.info, ...collected.error].join('\n');
    for (const ignored of ['_helper', 'helper_tool', 'x.test', 'test_tool', 'types.d.ts', 'README'])
      expect(everything).not.toContain(ignored);
    expect(registries.tools.get('helper_tool')).toBeUndefined();
    expect(registries.tools.get('test_tool')).toBeUndefined();
  });

  it('resolves a tool’s own aliases', () => {
    expect(registries.tools.get('goodie')?.name).toBe('good_context');
    expect(registries.tools.aliasesOf('good_context')).toEqual(['goodie']);
  });

  it('lists the placeholders of loaded context tools only', () => {
    expect(registries.tools.placeholders()).toEqual(new Set(['dup_a', 'good']));
  });
});

describe('loadRegistries on missing folders', () => {
  it('loads nothing and logs nothing when the plugin folders do not exist', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'merino-registries-empty-'));
    try {
      const collected = collectingLog();
      const registries = await loadRegistries(collected.log, {
        tools: path.join(root, 'no-tools'),
        promptProcessors: path.join(root, 'no-processors'),
        connectors: path.join(root, 'no-connectors'),
      });
      expect(registries.tools.list()).toEqual([]);
      expect(registries.promptProcessors.size).toBe(0);
      expect(registries.connectors.size).toBe(0);
      expect([...collected.info, ...collected.error]).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

describe('ToolRegistry', () => {
  const base = { displayName: 'T', description: 'T', category: 'test', version: '1.0', configSchema: {} };
  const registry = new ToolRegistry([
    defineTool({ ...base, name: 'single_file_rag', placeholder: 'file', provide: async () => ({ content: '' }) }),
    defineTool({ ...base, name: 'kb_search', aliases: ['kb'], placeholder: 'context', provide: async () => ({ content: '' }) }),
    defineTool({ ...base, name: 'second_context', placeholder: 'context', provide: async () => ({ content: '' }) }),
    defineTool({
      ...base,
      name: 'calculator',
      function: { describe: () => ({ name: 'calc', description: 'adds' }), parameters: {}, call: async () => ({ content: '2' }) },
    }),
  ]);

  it('finds tools by name, by the normalizer’s aliases and by their own aliases', () => {
    expect(registry.get('single_file_rag')?.name).toBe('single_file_rag');
    expect(registry.get('single_file')?.name).toBe('single_file_rag');
    expect(registry.get('kb')?.name).toBe('kb_search');
    expect(registry.get('no_tool')).toBeUndefined();
    expect(registry.get('unknown')).toBeUndefined();
  });

  it('lists tools sorted by name', () => {
    expect(registry.list().map((tool) => tool.name)).toEqual(['calculator', 'kb_search', 'second_context', 'single_file_rag']);
  });

  it('gives each declared placeholder once and ignores function-only tools', () => {
    expect(registry.placeholders()).toEqual(new Set(['context', 'file']));
  });
});
