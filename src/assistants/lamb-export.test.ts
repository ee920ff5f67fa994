/**
 * Tests of LAMB-compatible export and import: exports carry LAMB's keys with LAMB's types, a
 * Merino round trip is lossless, and real LAMB exports (flat or wrapped) import with LAMB's name
 * mangling undone.
 */

import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { asImportMetadataError, fromImportDocument, toExportDocument, type ExportableAssistant } from './lamb-export.js';
import { normalizeMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import { LAMB_ROW_KEYS } from '../../test/support/lamb-export-keys.js';

function makeAssistant(overrides: Partial<ExportableAssistant> = {}): ExportableAssistant {
  return {
    id: 17,
    name: 'Math Tutor',
    description: 'Helps with algebra.',
    ownerEmail: 'teacher@example.edu',
    systemPrompt: 'You are a patient math tutor.',
    promptTemplate: 'Context:\n{context}\n\nQuestion: {user_input}',
    metadata: normalizeMetadata({
      assistant_type: 'multi_tool',
      prompt_processor: 'multi_augment',
      connector: 'openai',
      llm: 'gpt-4o-mini',
      tools: [
        { type: 'simple_rag', config: { collections: ['kb-1'], top_k: 4 } },
        { type: 'rubric', config: { rubric_id: 42 } },
      ],
    }),
    ragCollections: ['kb-1', 'kb-2'],
    ragTopK: 4,
    published: true,
    publishedAt: '2025-03-01T10:00:00.000Z',
    createdAt: '2025-02-01T09:30:00.000Z',
    updatedAt: '2025-03-02T12:00:30.500Z',
    ...overrides,
  };
}

function captureAppError(action: () => unknown): AppError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected an AppError, but nothing was thrown');
}

/** A classic assistant as LAMB's export endpoint writes it. */
const lambBiologyTutor = {
  id: 8,
  name: '3_Biology_Tutor',
  description: 'Answers questions about cell biology.',
  owner: 'prof@university.edu',
  api_callback: '',
  metadata:
    '{"prompt_processor": "simple_augment", "connector": "openai", "llm": "gpt-4o-mini", "rag_processor": "simple_rag", "file_path": "", "rubric_id": "", "rubric_format": "markdown", "capabilities": {"vision": false, "image_generation": false}}',
  system_prompt: 'You are a biology tutor for first-year students.',
  prompt_template: 'Use this context:\n{context}\n\nStudent question: {user_input}',
  RAG_endpoint: '',
  RAG_Top_k: 5,
  RAG_collections: 'kb-1, kb-2,',
  pre_retrieval_endpoint: '',
  post_retrieval_endpoint: '',
  published: true,
  published_at: 1718000000,
  group_id: 'assistant_8',
  group_name: 'assistant_8',
  oauth_consumer_name: '3_Biology_Tutor',
  created_at: 1717000000,
  updated_at: 1718000000,
};

describe('export', () => {
  it("has exactly LAMB's keys with LAMB's types, plus merino_export_version", () => {
    const document = toExportDocument(makeAssistant());
    expect(Object.keys(document).sort()).toEqual([...LAMB_ROW_KEYS, 'merino_export_version'].sort());
    expect(document).toMatchObject({
      id: 17,
      name: 'Math Tutor',
      owner: 'teacher@example.edu',
      system_prompt: 'You are a patient math tutor.',
      RAG_endpoint: '',
      RAG_Top_k: 4,
      RAG_collections: 'kb-1,kb-2',
      pre_retrieval_endpoint: '',
      post_retrieval_endpoint: '',
      published: true,
      published_at: 1740823200,
      group_id: 'assistant_17',
      group_name: 'assistant_17',
      oauth_consumer_name: 'Math Tutor',
      created_at: 1738402200,
      updated_at: 1740916830,
      merino_export_version: 1,
    });
    expect(typeof document.metadata).toBe('string');
    expect(document.api_callback).toBe(document.metadata);
    expect(JSON.parse(document.metadata as string)).toEqual(makeAssistant().metadata);
  });

  it('writes null publication fields for an unpublished assistant', () => {
    const document = toExportDocument(makeAssistant({ published: false, publishedAt: null }));
    expect(document).toMatchObject({
      published: false,
      published_at: null,
      group_id: null,
      group_name: null,
      oauth_consumer_name: null,
    });
  });
});

describe('round trip', () => {
  const trickyNames = [
    'Math Tutor',
    '12_Math_Tutor',
    'snake_case_name',
    '2024_exam_prep',
    '  padded name  ',
    'Ñandú 🦙 — tutor de física',
    '数学の先生_v2',
  ];

  for (const name of trickyNames) {
    it(`gives back every imported field exactly for the name ${JSON.stringify(name)}`, () => {
      const assistant = makeAssistant({ name });
      const imported = fromImportDocument(toExportDocument(assistant));
      expect(imported).toEqual({
        name: assistant.name,
        description: assistant.description,
        systemPrompt: assistant.systemPrompt,
        promptTemplate: assistant.promptTemplate,
        metadata: assistant.metadata,
        ragCollections: assistant.ragCollections,
        ragTopK: assistant.ragTopK,
      });
    });
  }

  it('survives serialisation to a JSON file', () => {
    const assistant = makeAssistant({ name: '7_weird_name', ragCollections: [], description: '' });
    const file = JSON.stringify(toExportDocument(assistant));
    const imported = fromImportDocument(JSON.parse(file));
    expect(imported.name).toBe('7_weird_name');
    expect(imported.ragCollections).toEqual([]);
    expect(imported.metadata).toEqual(assistant.metadata);
  });
});

describe('LAMB import', () => {
  it('imports a real LAMB export of a classic simple_rag assistant', () => {
    const imported = fromImportDocument(lambBiologyTutor);
    expect(imported).toEqual({
      name: 'Biology Tutor',
      description: 'Answers questions about cell biology.',
      systemPrompt: 'You are a biology tutor for first-year students.',
      promptTemplate: 'Use this context:\n{context}\n\nStudent question: {user_input}',
      metadata: {
        _format_version: 2,
        prompt_processor: 'simple_augment',
        connector: 'openai',
        llm: 'gpt-4o-mini',
        rag_processor: 'simple_rag',
        file_path: '',
        rubric_id: '',
        rubric_format: 'markdown',
        capabilities: { vision: false, image_generation: false },
      },
      ragCollections: ['kb-1', 'kb-2'],
      ragTopK: 5,
    });
  });

  it('never imports publication state, ids, owner or timestamps', () => {
    const imported = fromImportDocument(lambBiologyTutor) as unknown as Record<string, unknown>;
    for (const key of ['id', 'owner', 'published', 'published_at', 'group_id', 'created_at', 'updated_at', 'publishedAt']) {
      expect(imported).not.toHaveProperty(key);
    }
  });

  it('unwraps a LAMB export wrapped as {assistant: {...}}', () => {
    const imported = fromImportDocument({ assistant: lambBiologyTutor });
    expect(imported.name).toBe('Biology Tutor');
    expect(imported.ragCollections).toEqual(['kb-1', 'kb-2']);
  });

  it('reads metadata from api_callback when metadata is absent or empty, as a string or an object', () => {
    const { metadata: _unused, ...withoutMetadata } = lambBiologyTutor;
    const asString = fromImportDocument({ ...withoutMetadata, api_callback: '{"connector":"ollama","rag_processor":"no_tool"}' });
    expect(asString.metadata).toEqual({ _format_version: 2, connector: 'ollama', rag_processor: 'no_rag' });
    const asObject = fromImportDocument({ ...lambBiologyTutor, metadata: '', api_callback: { tools: ['weather'] } });
    expect(asObject.metadata).toEqual({ _format_version: 2, tools: [{ type: 'weather', enabled: true, config: {} }] });
  });

  it('imports empty metadata as {_format_version: 2}', () => {
    const imported = fromImportDocument({ name: '5_Blank', metadata: '', api_callback: null });
    expect(imported.metadata).toEqual({ _format_version: 2 });
  });

  it('undoes LAMB name mangling only where LAMB applied it', () => {
    const nameOf = (name: string): string => fromImportDocument({ name }).name;
    expect(nameOf('12_Math_Tutor')).toBe('Math Tutor');
    expect(nameOf('Physics_Helper')).toBe('Physics Helper');
    expect(nameOf('4_my assistant_v2')).toBe('my assistant_v2');
    expect(nameOf('4_2024_exam')).toBe('2024 exam');
    expect(nameOf('Chemistry')).toBe('Chemistry');
  });

  it('accepts RAG_collections as an array and falls back to top_k 3 when it is missing or invalid', () => {
    const imported = fromImportDocument({ name: '1_X', RAG_collections: [' kb-9 ', '', 'kb-10'] });
    expect(imported.ragCollections).toEqual(['kb-9', 'kb-10']);
    expect(imported.ragTopK).toBe(3);
    for (const topK of [0, -2, 2.5, 'many', null, {}]) {
      expect(fromImportDocument({ name: 'X', RAG_Top_k: topK }).ragTopK).toBe(3);
    }
    expect(fromImportDocument({ name: 'X', RAG_Top_k: '8' }).ragTopK).toBe(8);
  });

  it('reads missing description and prompts as empty strings', () => {
    expect(fromImportDocument({ name: 'Only a name' })).toEqual({
      name: 'Only a name',
      description: '',
      systemPrompt: '',
      promptTemplate: '',
      metadata: { _format_version: 2 },
      ragCollections: [],
      ragTopK: 3,
    });
  });
});

describe('import rejections', () => {
  it('rejects a document that is not an object', () => {
    for (const document of [null, undefined, 'text', 42, [lambBiologyTutor]]) {
      const error = captureAppError(() => fromImportDocument(document));
      expect(error.code).toBe('invalid_import');
    }
  });

  it('rejects a document without a non-empty name, naming the field', () => {
    for (const document of [{}, { name: '' }, { name: '   ' }, { name: 42 }, { name: '12_' }, { assistant: { description: 'x' } }]) {
      const error = captureAppError(() => fromImportDocument(document));
      expect(error.code).toBe('invalid_import');
      expect(error.param).toBe('name');
    }
    const merinoError = captureAppError(() => fromImportDocument({ ...toExportDocument(makeAssistant()), name: ' ' }));
    expect(merinoError.param).toBe('name');
  });

  it('rejects metadata that is not valid JSON as invalid_metadata', () => {
    const error = captureAppError(() => fromImportDocument({ ...lambBiologyTutor, metadata: '{"connector": "openai"' }));
    expect(error.code).toBe('invalid_metadata');
    expect(error.param).toBe('metadata');
  });

  it('names api_callback when the bad metadata came from there', () => {
    const error = captureAppError(() =>
      fromImportDocument({ name: 'X', api_callback: '{"tools": [{"type": "weather", "enabled": "yes"}]}' }),
    );
    expect(error.code).toBe('invalid_metadata');
    expect(error.param).toBe('api_callback.tools[0].enabled');
  });

  it("names a later metadata check's error after the field the document held the metadata in", () => {
    const later = new AppError('invalid_metadata', 'not installed', { param: 'metadata.rag_processor', details: { errors: [] } });
    const fromApiCallback = asImportMetadataError(
      { name: 'X', metadata: '', api_callback: '{"rag_processor": "simple_rag"}' },
      later,
    ) as AppError;
    expect(fromApiCallback.param).toBe('api_callback.rag_processor');
    expect(fromApiCallback).toMatchObject({ code: 'invalid_metadata', message: 'not installed', details: { errors: [] } });
    expect(asImportMetadataError({ assistant: { name: 'X', api_callback: { connector: 'nope' } } }, later)).toMatchObject({
      param: 'api_callback.rag_processor',
    });
    expect(asImportMetadataError(lambBiologyTutor, later)).toBe(later);
  });

  it('rejects wrongly typed text fields and collections, naming the field', () => {
    expect(captureAppError(() => fromImportDocument({ name: 'X', description: 5 })).param).toBe('description');
    expect(captureAppError(() => fromImportDocument({ name: 'X', RAG_collections: 5 })).param).toBe('RAG_collections');
    expect(captureAppError(() => fromImportDocument({ name: 'X', RAG_collections: ['a', 7] })).param).toBe('RAG_collections[1]');
  });

  it('rejects an export of an unknown Merino export version', () => {
    const error = captureAppError(() => fromImportDocument({ ...toExportDocument(makeAssistant()), merino_export_version: 2 }));
    expect(error.code).toBe('invalid_import');
    expect(error.param).toBe('merino_export_version');
  });
});
