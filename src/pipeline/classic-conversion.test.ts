/**
 * Proves the classic → multi-tool mapping: every classic rag processor becomes the tool seed 001
 * maps it to, configured from the same legacy fields the classic run reads, routed to {context} so
 * the classic template still works; prompt processors, capabilities and verbose carry over; the log
 * line follows 001 §10.7; a multi-tool assistant or an unknown rag processor is refused with 409.
 */
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import type { AssistantSnapshot } from './assistant-metadata/assistant-snapshot.js';
import { convertClassicAssistant, type ConvertibleTool } from './classic-conversion.js';
import { normalizeMetadata } from './assistant-metadata/metadata-normalizer.js';
import { CLASSIC_DEFAULT_TEMPLATE } from './templates/template-rendering.js';

const INSTALLED: Record<string, ConvertibleTool> = {
  no_rag: { name: 'no_rag', placeholder: 'context', runsBeforehand: true },
  simple_rag: { name: 'simple_rag', placeholder: 'context', runsBeforehand: true },
  rubric_rag: { name: 'rubric_rag', placeholder: 'rubric', runsBeforehand: true },
  single_file_rag: { name: 'single_file_rag', placeholder: 'file', runsBeforehand: true },
  weather: { name: 'weather', placeholder: undefined, runsBeforehand: false },
};
const ALIASES: Record<string, string> = { rubric: 'rubric_rag', single_file: 'single_file_rag', no_tool: 'no_rag' };

function findTool(name: string): ConvertibleTool | undefined {
  return INSTALLED[ALIASES[name] ?? name];
}

function classic(metadata: Record<string, unknown>, fields: Partial<AssistantSnapshot> = {}): AssistantSnapshot {
  return {
    id: 42,
    name: 'My RAG Assistant',
    ownerId: 1,
    organizationId: 1,
    systemPrompt: 'Be kind.',
    promptTemplate: 'Context: {context}\nQuestion: {user_input}',
    metadata: normalizeMetadata(metadata),
    ragCollections: ['col-1', 'col-2'],
    ragTopK: 5,
    ...fields,
  };
}

function convert(assistant: AssistantSnapshot) {
  return convertClassicAssistant(assistant, findTool, 'owner@example.com');
}

function refusal(assistant: AssistantSnapshot): AppError {
  try {
    convert(assistant);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the conversion to be refused');
}

describe('rag processors become tools', () => {
  it.each(['', 'no_rag', 'no_tool'])('rag_processor %j becomes an empty tool list', (ragProcessor) => {
    const result = convert(classic({ rag_processor: ragProcessor, connector: 'openai', llm: 'gpt-4o-mini' }));
    expect(result.metadata).toEqual({
      _format_version: 2,
      assistant_type: 'multi_tool',
      connector: 'openai',
      llm: 'gpt-4o-mini',
      prompt_processor: 'multi_augment',
      tools: [],
    });
  });

  it('an assistant without rag_processor has no tools and keeps its template as written', () => {
    const result = convert(classic({}, { promptTemplate: '' }));
    expect(result.metadata.tools).toEqual([]);
    expect(result.promptTemplate).toBe('');
  });

  it('simple_rag takes the collections and top-k of the legacy columns', () => {
    const result = convert(classic({ rag_processor: 'simple_rag' }));
    expect(result.metadata.tools).toEqual([{ type: 'simple_rag', enabled: true, config: { collections: ['col-1', 'col-2'], top_k: 5 } }]);
    expect(result.metadata).not.toHaveProperty('rag_processor');
  });

  it("simple_rag's top-k is capped as the classic run caps it", () => {
    const result = convert(classic({ rag_processor: 'simple_rag' }, { ragTopK: 500 }));
    expect(result.metadata.tools?.[0]?.config.top_k).toBe(20);
  });

  it('rubric_rag keeps its canonical name, takes rubric_id and rubric_format, and is routed to {context}', () => {
    const result = convert(classic({ rag_processor: 'rubric_rag', rubric_id: 7, rubric_format: 'json' }));
    expect(result.metadata.tools).toEqual([
      { type: 'rubric_rag', enabled: true, config: { rubric_id: '7', format: 'json', placeholder: 'context' } },
    ]);
    for (const key of ['rubric_id', 'rubric_format', 'rag_processor']) expect(result.metadata).not.toHaveProperty(key);
  });

  it("001's alias rubric is read as rubric_rag, with format markdown by default", () => {
    const result = convert(classic({ rag_processor: 'rubric', rubric_id: 'r-1' }));
    expect(result.metadata.tools).toEqual([
      { type: 'rubric_rag', enabled: true, config: { rubric_id: 'r-1', format: 'markdown', placeholder: 'context' } },
    ]);
  });

  it('single_file_rag takes file_path and is routed to {context}', () => {
    const result = convert(classic({ rag_processor: 'single_file_rag', file_path: 'docs/guide.md' }));
    expect(result.metadata.tools).toEqual([
      { type: 'single_file_rag', enabled: true, config: { file_path: 'docs/guide.md', placeholder: 'context' } },
    ]);
    expect(result.metadata).not.toHaveProperty('file_path');
  });

  it('a rag processor that is not installed (a context-aware LAMB variant, say) is refused with 409 naming it', () => {
    const error = refusal(classic({ rag_processor: 'context_aware_rag' }));
    expect(error.code).toBe('assistant_not_convertible');
    expect(error.status).toBe(409);
    expect(error.message).toContain('"context_aware_rag"');
  });

  it('a function-only tool saved as rag processor is refused with 409 naming it', () => {
    const error = refusal(classic({ rag_processor: 'weather' }));
    expect(error.code).toBe('assistant_not_convertible');
    expect(error.message).toContain('"weather"');
  });

  it('a multi-tool assistant is refused with 409', () => {
    const error = refusal(classic({ assistant_type: 'multi_tool', tools: ['simple_rag'] }));
    expect(error.code).toBe('assistant_not_convertible');
    expect(error.message).toContain('multi-tool assistant already');
  });
});

describe('prompt processors, template and other keys', () => {
  it.each([
    [undefined, 'multi_augment'],
    ['simple_augment', 'multi_augment'],
    ['moodle_augment', 'moodle_augment'],
    ['tool_augment', 'tool_augment'],
  ])('prompt processor %j becomes %j', (before, after) => {
    const metadata = before === undefined ? {} : { prompt_processor: before };
    expect(convert(classic(metadata)).metadata.prompt_processor).toBe(after);
  });

  it('capabilities, verbose, unknown keys and the tool loop carry over unchanged', () => {
    const result = convert(
      classic({
        rag_processor: 'no_rag',
        capabilities: { vision: true, image_generation: false },
        verbose: true,
        tool_loop: { max_iterations: 3 },
        lamb_future_key: { kept: true },
      }),
    );
    expect(result.metadata).toMatchObject({
      capabilities: { vision: true, image_generation: false },
      verbose: true,
      tool_loop: { max_iterations: 3 },
      lamb_future_key: { kept: true },
    });
  });

  it('a custom template with its own placeholders is kept exactly as written', () => {
    const template = 'Rubric:\n{context}\nStudent ({moodle_user}) wrote: {user_input}\nKeep {braces} and {unknown_one}.';
    const result = convert(classic({ rag_processor: 'rubric_rag', rubric_id: '3' }, { promptTemplate: template }));
    expect(result.promptTemplate).toBe(template);
  });

  it("a classic assistant with a tool and no template gets LAMB's default template, which it used", () => {
    const result = convert(classic({ rag_processor: 'simple_rag' }, { promptTemplate: '' }));
    expect(result.promptTemplate).toBe(CLASSIC_DEFAULT_TEMPLATE);
  });
});

describe('the log line of 001 §10.7', () => {
  it('names the assistant, its owner, both metadata objects and both versions', () => {
    const result = convert(classic({ rag_processor: 'simple_rag', connector: 'openai' }));
    const lines = result.log.split('\n');
    expect(lines[0]).toBe('INFO lamb.migration: Migrated assistant 42 from v1 to v2');
    expect(lines.slice(1)).toEqual([
      '  assistant_id: 42',
      '  assistant_name: "My RAG Assistant"',
      '  owner: "owner@example.com"',
      '  old_metadata: {"rag_processor":"simple_rag","connector":"openai"}',
      `  new_metadata: ${JSON.stringify(result.metadata)}`,
      '  from_version: 1',
      '  to_version: 2',
    ]);
  });
});

it('never changes the classic assistant it converts', () => {
  const assistant = classic({ rag_processor: 'rubric_rag', rubric_id: '3', capabilities: { vision: false } });
  const before = JSON.stringify(assistant);
  convert(assistant);
  expect(JSON.stringify(assistant)).toBe(before);
});
