/**
 * Tests of the metadata normalizer: every accepted tool shape becomes `{type, enabled, config}`,
 * legacy names and id types are canonicalised, and every bad input is refused with a precise param.
 */

import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.js';
import { TOOL_TYPE_ALIASES, assistantTypeOf, canonicalToolType, normalizeMetadata, parseMetadataInput } from './metadata-normalizer.js';

/** Runs `action` and returns the AppError it throws, failing the test if it throws anything else. */
function captureAppError(action: () => unknown): AppError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError, but nothing was thrown');
}

function expectInvalidMetadata(input: unknown, param: string): AppError {
  const error = captureAppError(() => normalizeMetadata(input));
  expect(error.code).toBe('invalid_metadata');
  expect(error.status).toBe(400);
  expect(error.param).toBe(param);
  expect(error.message).toContain(param);
  return error;
}

describe('tool shapes', () => {
  it('turns a bare tool name string (seed 003) into an enabled tool with empty config', () => {
    const result = normalizeMetadata({ tools: ['weather', 'moodle'] });
    expect(result.tools).toEqual([
      { type: 'weather', enabled: true, config: {} },
      { type: 'moodle', enabled: true, config: {} },
    ]);
  });

  it('keeps {type, enabled, config} (seeds 000/001) and defaults enabled to true and config to {}', () => {
    const result = normalizeMetadata({
      tools: [{ type: 'simple_rag', enabled: false, config: { collections: ['col-123'], top_k: 5 } }, { type: 'single_file_rag' }],
    });
    expect(result.tools).toEqual([
      { type: 'simple_rag', enabled: false, config: { collections: ['col-123'], top_k: 5 } },
      { type: 'single_file_rag', enabled: true, config: {} },
    ]);
  });

  it('moves the top-level fields of an assistant tool (seed 002) into config and honours enabled', () => {
    const result = normalizeMetadata({
      tools: [
        { type: 'assistant', assistant_id: 42, name: 'math_expert', description: 'Expert in mathematics education' },
        { type: 'assistant', assistant_id: 55, enabled: false },
      ],
    });
    expect(result.tools).toEqual([
      {
        type: 'assistant',
        enabled: true,
        config: { assistant_id: 42, name: 'math_expert', description: 'Expert in mathematics education' },
      },
      { type: 'assistant', enabled: false, config: { assistant_id: 55 } },
    ]);
  });

  it("reads LAMB's multi-tool plugin entries and puts the placeholder into config only when given", () => {
    const result = normalizeMetadata({
      tools: [{ plugin: 'simple_rag', placeholder: 'context', enabled: false, config: { top_k: 4 } }, { plugin: 'weather' }],
    });
    expect(result.tools).toEqual([
      { type: 'simple_rag', enabled: false, config: { top_k: 4, placeholder: 'context' } },
      { type: 'weather', enabled: true, config: {} },
    ]);
  });

  it('moves other top-level keys of a typed tool into config (seed 002 knowledge_base entry)', () => {
    const result = normalizeMetadata({
      tools: [{ type: 'knowledge_base', kb_id: 'abc123', name: 'course_materials' }],
    });
    expect(result.tools).toEqual([{ type: 'knowledge_base', enabled: true, config: { kb_id: 'abc123', name: 'course_materials' } }]);
  });
});

describe('tool type aliases', () => {
  it("maps 001's rubric, single_file and no_tool to the canonical classic names", () => {
    expect(TOOL_TYPE_ALIASES).toEqual({ rubric: 'rubric_rag', single_file: 'single_file_rag', no_tool: 'no_rag' });
    expect(canonicalToolType('rubric')).toBe('rubric_rag');
    expect(canonicalToolType('single_file')).toBe('single_file_rag');
    expect(canonicalToolType('no_tool')).toBe('no_rag');
    expect(canonicalToolType('simple_rag')).toBe('simple_rag');
    expect(canonicalToolType('toString')).toBe('toString');
  });

  it('canonicalises aliases in every tool shape and in rag_processor', () => {
    const result = normalizeMetadata({
      rag_processor: 'single_file',
      tools: ['no_tool', { type: 'rubric', config: { format: 'markdown' } }, { plugin: 'single_file' }],
    });
    expect(result.rag_processor).toBe('single_file_rag');
    expect(result.tools?.map((tool) => tool.type)).toEqual(['no_rag', 'rubric_rag', 'single_file_rag']);
  });
});

describe('id types', () => {
  it('turns an integer rubric_id into a string at the top level and in a rubric tool config', () => {
    const result = normalizeMetadata({
      rubric_id: 123,
      tools: [{ type: 'rubric', config: { rubric_id: 42, format: 'markdown' } }],
    });
    expect(result.rubric_id).toBe('123');
    expect(result.tools?.[0]?.config).toEqual({ rubric_id: '42', format: 'markdown' });
  });

  it('keeps a string rubric_id as it is', () => {
    expect(normalizeMetadata({ rubric_id: 'rubric-7' }).rubric_id).toBe('rubric-7');
  });

  it('turns a numeric-string assistant_id into an integer', () => {
    const result = normalizeMetadata({ tools: [{ type: 'assistant', assistant_id: '42' }] });
    expect(result.tools?.[0]?.config.assistant_id).toBe(42);
  });

  it('rejects an assistant_id that is not a positive integer, naming its path', () => {
    expectInvalidMetadata({ tools: ['weather', { type: 'assistant', assistant_id: 'math' }] }, 'metadata.tools[1].assistant_id');
    expectInvalidMetadata({ tools: [{ type: 'assistant', assistant_id: 0 }] }, 'metadata.tools[0].assistant_id');
    expectInvalidMetadata({ tools: [{ type: 'assistant', assistant_id: 4.5 }] }, 'metadata.tools[0].assistant_id');
    expectInvalidMetadata({ tools: [{ type: 'assistant', config: { assistant_id: -3 } }] }, 'metadata.tools[0].config.assistant_id');
    expectInvalidMetadata({ tools: [{ type: 'assistant', name: 'no id' }] }, 'metadata.tools[0].assistant_id');
  });
});

describe('format version and pass-through', () => {
  it('always sets _format_version 2, also when the input says 1', () => {
    expect(normalizeMetadata({})._format_version).toBe(2);
    expect(normalizeMetadata({ _format_version: 1, rag_processor: 'simple_rag' })._format_version).toBe(2);
  });

  it('keeps unknown top-level keys and LAMB keys untouched', () => {
    const input = {
      prompt_processor: 'simple_augment',
      connector: 'openai',
      llm: 'gpt-4o-mini',
      file_path: '',
      rubric_format: 'markdown',
      capabilities: { vision: false, image_generation: false, tool_use: true },
      document_rag: '',
      future_key: { nested: [1, 'two', null] },
    };
    expect(normalizeMetadata(input)).toEqual({ _format_version: 2, ...input });
  });

  it('is idempotent', () => {
    const input = {
      _format_version: 1,
      assistant_type: 'multi_tool',
      rubric_id: 9,
      rag_processor: 'rubric',
      tools: [
        'weather',
        { type: 'rubric', config: { rubric_id: 42 } },
        { type: 'assistant', assistant_id: '42', name: 'math_expert' },
        { plugin: 'simple_rag', placeholder: 'context', config: { top_k: 2 } },
        { type: 'knowledge_base', kb_id: 'abc123' },
      ],
    };
    const once = normalizeMetadata(input);
    const twice = normalizeMetadata(once);
    expect(twice).toEqual(once);
    expect(JSON.stringify(twice)).toBe(JSON.stringify(once));
  });

  it('does not mutate its input or share nested objects with it', () => {
    const input = {
      _format_version: 1,
      rubric_id: 5,
      capabilities: { vision: true },
      tools: ['weather', { type: 'assistant', assistant_id: '7', name: 'helper' }, { plugin: 'rubric', placeholder: 'rubric' }],
    };
    const snapshot = structuredClone(input);
    const result = normalizeMetadata(input);
    expect(input).toEqual(snapshot);
    result.capabilities!.vision = false;
    expect(input.capabilities.vision).toBe(true);
  });
});

describe('input forms', () => {
  it('accepts a JSON string of an object', () => {
    const result = normalizeMetadata('{"connector":"openai","tools":["weather"]}');
    expect(result).toEqual({ _format_version: 2, connector: 'openai', tools: [{ type: 'weather', enabled: true, config: {} }] });
  });

  it('reads an empty string, null and undefined as empty metadata', () => {
    for (const empty of ['', '   ', null, undefined]) {
      expect(parseMetadataInput(empty)).toEqual({});
      expect(normalizeMetadata(empty)).toEqual({ _format_version: 2 });
    }
  });

  it('rejects an array, a number, bad JSON and JSON of a non-object with param metadata', () => {
    const rejected: unknown[] = [[], [{ connector: 'openai' }], 42, true, '{"connector":', '"just a string"', '[1,2]', 'null', '7'];
    for (const input of rejected) {
      const error = captureAppError(() => parseMetadataInput(input));
      expect(error.code).toBe('invalid_metadata');
      expect(error.param).toBe('metadata');
      expect(error.message).toMatch(/metadata (must be|is a string but not valid JSON)/);
    }
  });

  it('says what is wrong with a rejected input', () => {
    expect(captureAppError(() => parseMetadataInput('{oops')).message).toContain('not valid JSON');
    expect(captureAppError(() => parseMetadataInput('"text"')).message).toContain('the string "text"');
    expect(captureAppError(() => parseMetadataInput([])).message).toContain('not an array');
  });
});

describe('schema rejections', () => {
  it('rejects tools that is not an array', () => {
    expectInvalidMetadata({ tools: { weather: true } }, 'metadata.tools');
  });

  it('rejects a tool of a fifth shape such as {foo: 1}', () => {
    const error = expectInvalidMetadata({ tools: ['weather', { foo: 1 }] }, 'metadata.tools[1].type');
    expect(error.message).toContain('is required');
  });

  it('rejects a tool that is neither a string nor an object', () => {
    expectInvalidMetadata({ tools: [42] }, 'metadata.tools[0]');
  });

  it('rejects enabled: "yes"', () => {
    const error = expectInvalidMetadata({ tools: [{ type: 'weather', enabled: 'yes' }] }, 'metadata.tools[0].enabled');
    expect(error.message).toContain('must be a boolean');
  });

  it('rejects an entry naming both a plugin and a type', () => {
    expectInvalidMetadata({ tools: [{ plugin: 'simple_rag', type: 'rubric_rag' }] }, 'metadata.tools[0].type');
  });

  it('lists every schema error in details.errors and names the first in message and param', () => {
    const error = expectInvalidMetadata(
      { assistant_type: 'hybrid', verbose: 'loud', capabilities: { vision: 'no' }, tools: [{ type: '' }] },
      'metadata.assistant_type',
    );
    expect(error.message).toContain('"classic", "multi_tool"');
    expect(error.details?.errors).toEqual([
      { path: 'metadata.assistant_type', message: expect.stringContaining('must be one of') },
      { path: 'metadata.capabilities.vision', message: expect.stringContaining('must be a boolean') },
      { path: 'metadata.verbose', message: expect.stringContaining('must be a boolean') },
      { path: 'metadata.tools[0].type', message: expect.stringContaining('must not be empty') },
    ]);
  });

  it('rejects wrongly typed known keys', () => {
    expectInvalidMetadata({ rubric_id: 1.5 }, 'metadata.rubric_id');
    expectInvalidMetadata({ rubric_format: 'html' }, 'metadata.rubric_format');
    expectInvalidMetadata({ _format_version: '2' }, 'metadata._format_version');
    expectInvalidMetadata({ llm: 4 }, 'metadata.llm');
  });
});

describe('assistantTypeOf', () => {
  it('is multi_tool only when assistant_type is exactly multi_tool', () => {
    expect(assistantTypeOf({ assistant_type: 'multi_tool' })).toBe('multi_tool');
    expect(assistantTypeOf({ assistant_type: 'classic' })).toBe('classic');
    expect(assistantTypeOf({})).toBe('classic');
    expect(assistantTypeOf(null)).toBe('classic');
    expect(assistantTypeOf(undefined)).toBe('classic');
    expect(assistantTypeOf({ assistant_type: 'MULTI_TOOL' })).toBe('classic');
    expect(assistantTypeOf({ assistant_type: true })).toBe('classic');
    expect(assistantTypeOf(normalizeMetadata({ assistant_type: 'multi_tool', tools: [] }))).toBe('multi_tool');
  });
});
