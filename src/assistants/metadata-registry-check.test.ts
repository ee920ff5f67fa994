// Proves the registry check of assistant metadata against the real plugin folders: installed tools pass by name or alias and are named canonically, unknown tools, processors and connectors are refused with the installed ones listed, every config problem is reported with its full path, disabled entries are checked too, and the placeholder routing key is not tool config.
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { loadRegistries, ToolRegistry, type Registries } from '../pipeline/plugin-loading/registries.js';
import type { ToolDefinition } from '../pipeline/plugin-contract/tool-definition.js';
import { normalizeMetadata, type AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import { findRegistryProblems, requireInstalledPlugins } from './metadata-registry-check.js';

let registries: Registries;

beforeAll(async () => {
  registries = await loadRegistries({ info: () => undefined, error: () => undefined });
});

function captureAppError(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected an AppError, but nothing was thrown');
}

function check(metadata: unknown): AssistantMetadata {
  return requireInstalledPlugins(normalizeMetadata(metadata), registries);
}

function problemsOf(metadata: unknown) {
  return findRegistryProblems(normalizeMetadata(metadata), registries);
}

describe('metadata that fits the installed plugins', () => {
  it('passes every installed tool, prompt processor and connector, unchanged', () => {
    const metadata = normalizeMetadata({
      assistant_type: 'multi_tool',
      prompt_processor: 'multi_augment',
      connector: 'bypass',
      llm: 'simple-bypass',
      tools: [
        'no_rag',
        { type: 'single_file_rag', enabled: true, config: { file_path: '3/a.md', max_chars: 500 } },
        { plugin: 'single_file', placeholder: 'notes', config: { file_path: '3/b.md' } },
      ],
    });
    expect(findRegistryProblems(metadata, registries)).toEqual([]);
    expect(requireInstalledPlugins(metadata, registries)).toEqual(metadata);
  });

  it('passes classic metadata naming each installed connector and prompt processor', () => {
    for (const connector of ['openai', 'ollama', 'bypass']) {
      for (const promptProcessor of ['simple_augment', 'multi_augment']) {
        expect(problemsOf({ connector, prompt_processor: promptProcessor, rag_processor: 'single_file_rag' })).toEqual([]);
      }
    }
  });

  it('passes metadata without tools, processors or connectors (the server defaults apply)', () => {
    expect(check({})).toEqual({ _format_version: 2 });
    expect(check({ assistant_type: 'multi_tool', tools: [] })).toEqual({ _format_version: 2, assistant_type: 'multi_tool', tools: [] });
  });

  it('accepts aliases and names the tools canonically', () => {
    const checked = check({ rag_processor: 'single_file', tools: ['no_tool', { type: 'single_file', config: { file_path: 'x.md' } }] });
    expect(checked.rag_processor).toBe('single_file_rag');
    expect(checked.tools?.map((entry) => entry.type)).toEqual(['no_rag', 'single_file_rag']);
  });

  it('names a tool canonically when only the plugin itself declares the alias', () => {
    const singleFile = registries.tools.get('single_file_rag') as ToolDefinition;
    const withOwnAlias: Registries = { ...registries, tools: new ToolRegistry([{ ...singleFile, aliases: ['one_file'] }]) };
    const metadata = normalizeMetadata({ rag_processor: 'one_file', tools: [{ type: 'one_file', config: { file_path: 'x.md' } }] });
    const checked = requireInstalledPlugins(metadata, withOwnAlias);
    expect(checked.tools?.[0]?.type).toBe('single_file_rag');
    expect(checked.rag_processor).toBe('single_file_rag');
    expect(metadata.tools?.[0]?.type).toBe('one_file');
  });

  it('accepts an empty classic rag_processor (LAMB writes "" for no retrieval)', () => {
    expect(problemsOf({ rag_processor: '' })).toEqual([]);
  });

  it('ignores rag_processor on a multi-tool assistant, which never runs it', () => {
    expect(problemsOf({ assistant_type: 'multi_tool', rag_processor: 'hierarchical_rag', tools: ['no_rag'] })).toEqual([]);
  });

  it('does not treat the placeholder routing key as tool config', () => {
    expect(problemsOf({ assistant_type: 'multi_tool', tools: [{ type: 'no_rag', config: { placeholder: 'context' } }] })).toEqual([]);
    expect(problemsOf({ assistant_type: 'multi_tool', tools: [{ plugin: 'no_tool', placeholder: 'extra' }] })).toEqual([]);
  });
});

describe('metadata naming something that is not installed', () => {
  it('refuses an unknown tool type, naming it and listing the installed tools with their aliases', () => {
    const error = captureAppError(() => check({ assistant_type: 'multi_tool', tools: ['no_rag', 'stock_prices'] }));
    expect(error.code).toBe('invalid_metadata');
    expect(error.status).toBe(400);
    expect(error.param).toBe('metadata.tools[1].type');
    expect(error.message).toContain('"stock_prices"');
    expect(error.message).toContain('no_rag (alias no_tool)');
    expect(error.message).toContain('single_file_rag (alias single_file)');
    expect(error.details).toEqual({ errors: [{ path: 'metadata.tools[1].type', message: error.message }] });
  });

  it('refuses a tool that is not installed, in every entry shape', () => {
    const cases: Array<[unknown, string]> = [
      [{ type: 'hierarchical_rag', config: { collections: ['kb-1'] } }, '"hierarchical_rag"'],
      [{ plugin: 'hierarchical_rag', placeholder: 'notes', config: {} }, '"hierarchical_rag"'],
      ['calculator', '"calculator"'],
    ];
    for (const [entry, named] of cases) {
      const error = captureAppError(() => check({ assistant_type: 'multi_tool', tools: [entry] }));
      expect(error.param).toBe('metadata.tools[0].type');
      expect(error.message).toContain(named);
    }
  });

  it("accepts seed 002's assistant entry now that the assistant tool is installed", () => {
    expect(
      problemsOf({
        assistant_type: 'multi_tool',
        tools: [{ type: 'assistant', assistant_id: 7, name: 'math_expert', description: 'Solves equations.' }],
      }),
    ).toEqual([]);
  });

  it('checks disabled entries too', () => {
    const error = captureAppError(() => check({ assistant_type: 'multi_tool', tools: [{ type: 'stock_prices', enabled: false }] }));
    expect(error.param).toBe('metadata.tools[0].type');
  });

  it('refuses an unknown classic rag_processor, listing the installed tools', () => {
    const error = captureAppError(() => check({ rag_processor: 'hierarchical_rag' }));
    expect(error.param).toBe('metadata.rag_processor');
    expect(error.message).toContain('"hierarchical_rag"');
    expect(error.message).toContain('single_file_rag');
  });

  it('refuses a function-only tool as a classic rag_processor, naming metadata.rag_processor', () => {
    for (const toolName of ['weather', 'moodle_courses', 'moodle_assignments']) {
      const error = captureAppError(() => check({ rag_processor: toolName }));
      expect(error.param).toBe('metadata.rag_processor');
      expect(error.message).toContain(`"${toolName}"`);
      expect(error.message).toContain('simple_rag');
    }
  });

  it('refuses an unknown prompt processor, listing the installed ones', () => {
    const error = captureAppError(() => check({ prompt_processor: 'quiz_augment' }));
    expect(error.param).toBe('metadata.prompt_processor');
    expect(error.message).toContain('"quiz_augment"');
    expect(error.message).toContain('multi_augment, simple_augment');
  });

  it('refuses an unknown connector, listing the installed ones', () => {
    const error = captureAppError(() => check({ connector: 'cohere' }));
    expect(error.param).toBe('metadata.connector');
    expect(error.message).toContain('"cohere"');
    expect(error.message).toContain('anthropic, banana_img, bypass, gemini, ollama, openai');
  });

  it('refuses an empty prompt processor or connector, which the pipeline could not run', () => {
    expect(captureAppError(() => check({ prompt_processor: '' })).param).toBe('metadata.prompt_processor');
    expect(captureAppError(() => check({ connector: '' })).param).toBe('metadata.connector');
  });

  it('reports every problem of the metadata in details.errors, in order, with the first as param', () => {
    const error = captureAppError(() =>
      check({
        rag_processor: 'hierarchical_rag',
        prompt_processor: 'nope',
        connector: 'nope',
        tools: ['stock_prices', { type: 'single_file_rag', config: {} }],
      }),
    );
    expect(error.param).toBe('metadata.tools[0].type');
    expect((error.details?.errors as Array<{ path: string }>).map((problem) => problem.path)).toEqual([
      'metadata.tools[0].type',
      'metadata.tools[1].config.file_path',
      'metadata.rag_processor',
      'metadata.prompt_processor',
      'metadata.connector',
    ]);
  });
});

describe('tool configs the tool would refuse', () => {
  it('lists every problem of a single_file_rag config with full paths', () => {
    const error = captureAppError(() =>
      check({ assistant_type: 'multi_tool', tools: ['no_rag', { type: 'single_file_rag', config: { max_chars: 0, colour: 'red' } }] }),
    );
    expect(error.code).toBe('invalid_metadata');
    const problems = error.details?.errors as Array<{ path: string; message: string }>;
    expect(problems.map((problem) => problem.path).sort()).toEqual([
      'metadata.tools[1].config.colour',
      'metadata.tools[1].config.file_path',
      'metadata.tools[1].config.max_chars',
    ]);
    expect(error.param).toBe(problems[0]?.path);
    expect(error.message).toBe(problems[0]?.message);
    for (const problem of problems) {
      expect(problem.message.startsWith(problem.path)).toBe(true);
      expect(problem.message).toContain('single_file_rag');
    }
    expect(problems.find((problem) => problem.path.endsWith('max_chars'))?.message).toContain('>= 1');
    expect(problems.find((problem) => problem.path.endsWith('colour'))?.message).toContain('not a known field');
    expect(problems.find((problem) => problem.path.endsWith('file_path'))?.message).toContain('required');
  });

  it('refuses config for a tool that takes none, and a wrongly typed value', () => {
    expect(problemsOf({ tools: [{ type: 'no_rag', config: { top_k: 3 } }] }).map((problem) => problem.path)).toEqual([
      'metadata.tools[0].config.top_k',
    ]);
    expect(problemsOf({ tools: [{ type: 'single_file', config: { file_path: 7 } }] }).map((problem) => problem.path)).toEqual([
      'metadata.tools[0].config.file_path',
    ]);
  });

  it('refuses a placeholder that is not a non-empty string', () => {
    expect(problemsOf({ tools: [{ type: 'no_rag', config: { placeholder: 5 } }] })).toEqual([
      { path: 'metadata.tools[0].config.placeholder', message: expect.stringContaining('non-empty string') },
    ]);
  });

  it('checks the config as stored, without writing the schema defaults into it', () => {
    const checked = check({ tools: [{ type: 'single_file_rag', config: { file_path: 'a.md' } }] });
    expect(checked.tools?.[0]?.config).toEqual({ file_path: 'a.md' });
  });
});
