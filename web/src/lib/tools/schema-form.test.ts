/**
 * Proves schema-form.ts over the schemas of the tools the server really registers (loaded through
 * src/pipeline/plugin-loading/registries.ts, so a tool that starts using a construct the form does not know fails
 * here) and over every other construct it promises: enums, formats, numbers with bounds, booleans,
 * lists of values and of objects, nested objects, required markers, defaults and pickers.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { describeFields, initialConfig, unsupportedKeywords, type FieldDescription, type JsonSchema } from './schema-form';

interface RegisteredTool {
  name: string;
  configSchema: JsonSchema;
}

// A computed path keeps the web app's type check out of the server's program (it has no Node types).
const REGISTRIES_MODULE = new URL('../../../../src/pipeline/plugin-loading/registries.ts', import.meta.url).href;
const SILENT_LOG = { info: () => undefined, error: (message: string) => console.error(message) };

let registered: RegisteredTool[] = [];

beforeAll(async () => {
  const registries = (await import(/* @vite-ignore */ REGISTRIES_MODULE)) as {
    loadRegistries: (log: typeof SILENT_LOG) => Promise<{ tools: { list(): RegisteredTool[] } }>;
  };
  registered = (await registries.loadRegistries(SILENT_LOG)).tools.list();
});

function schemaOf(name: string): JsonSchema {
  const tool = registered.find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`the tool ${name} is not registered`);
  return tool.configSchema;
}

function field(fields: FieldDescription[], key: string): FieldDescription {
  const found = fields.find((candidate) => candidate.key === key);
  if (!found) throw new Error(`no field ${key}`);
  return found;
}

describe('the registered tools', () => {
  it('are all loaded, context and function tools alike', () => {
    expect(registered.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['assistant', 'rubric_rag', 'simple_rag', 'single_file_rag', 'weather', 'search_knowledge_base']),
    );
  });

  it('use no JSON Schema keyword the form does not understand', () => {
    const unknown = registered.flatMap((tool) => unsupportedKeywords(tool.configSchema).map((problem) => `${tool.name} ${problem}`));
    expect(unknown).toEqual([]);
  });

  it('describe a field for every property, and a picker for every id a teacher should not type', () => {
    for (const tool of registered) {
      const properties = Object.keys(tool.configSchema['properties'] ?? {});
      expect(describeFields(tool.configSchema).map((described) => described.key)).toEqual(properties);
    }
    expect(field(describeFields(schemaOf('simple_rag')), 'collections')).toMatchObject({
      kind: 'picker',
      picker: 'knowledge_bases',
      multiple: true,
      required: true,
    });
    expect(field(describeFields(schemaOf('search_knowledge_base')), 'collections')).toMatchObject({
      kind: 'picker',
      picker: 'knowledge_bases',
    });
    expect(field(describeFields(schemaOf('list_documents')), 'collections')).toMatchObject({ kind: 'picker', picker: 'knowledge_bases' });
    expect(field(describeFields(schemaOf('rubric_rag')), 'rubric_id')).toMatchObject({
      kind: 'picker',
      picker: 'rubric',
      multiple: false,
      required: true,
    });
    expect(field(describeFields(schemaOf('single_file_rag')), 'file_path')).toMatchObject({
      kind: 'picker',
      picker: 'file',
      required: true,
    });
    expect(field(describeFields(schemaOf('assistant')), 'assistant_id')).toMatchObject({
      kind: 'picker',
      picker: 'assistant',
      required: true,
    });
  });

  it('turn integers and numbers with bounds into number fields', () => {
    const simpleRag = describeFields(schemaOf('simple_rag'));
    expect(field(simpleRag, 'top_k')).toMatchObject({
      kind: 'number',
      integer: true,
      minimum: 1,
      maximum: 20,
      defaultValue: 3,
      required: false,
    });
    expect(field(simpleRag, 'threshold')).toMatchObject({ kind: 'number', integer: false, minimum: 0, maximum: 1, defaultValue: 0 });
    expect(field(describeFields(schemaOf('single_file_rag')), 'max_chars')).toMatchObject({ kind: 'number', integer: true, minimum: 1 });
  });

  it('turn enums into choices, with their default and description as the hint', () => {
    expect(field(describeFields(schemaOf('simple_rag')), 'query_mode')).toMatchObject({
      kind: 'choice',
      options: ['last_message', 'context_aware'],
      defaultValue: 'last_message',
    });
    expect(field(describeFields(schemaOf('rubric_rag')), 'format')).toMatchObject({
      kind: 'choice',
      options: ['markdown', 'json'],
      description: 'How the evaluation document is written for the model',
    });
  });

  it('turn strings into text fields with their length limit', () => {
    expect(field(describeFields(schemaOf('assistant')), 'name')).toMatchObject({ kind: 'text', maxLength: 64, required: false });
    expect(field(describeFields(schemaOf('assistant')), 'description')).toMatchObject({ kind: 'text', maxLength: 1_000 });
  });

  it('give a tool without settings no fields, and start every config from the defaults', () => {
    expect(describeFields(schemaOf('weather'))).toEqual([]);
    expect(initialConfig(schemaOf('weather'))).toEqual({});
    expect(initialConfig(schemaOf('simple_rag'))).toEqual({ top_k: 3, threshold: 0, query_mode: 'last_message' });
    expect(initialConfig(schemaOf('rubric_rag'))).toEqual({ format: 'markdown' });
    expect(initialConfig(schemaOf('single_file_rag'))).toEqual({ max_chars: 50_000 });
  });
});

describe('constructs no registered tool uses yet', () => {
  const schema: JsonSchema = {
    type: 'object',
    required: ['endpoint', 'options'],
    properties: {
      endpoint: { type: 'string', format: 'uri', description: 'Where to send requests' },
      verbose: { type: 'boolean', default: false },
      tags: { type: 'array', items: { type: 'string' }, maxItems: 3 },
      weights: { type: 'array', items: { type: 'number' } },
      levels: { type: 'array', items: { type: 'string', enum: ['low', 'high'] } },
      rules: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['pattern'],
          properties: { pattern: { type: 'string' }, score: { type: 'integer', default: 1 } },
        },
      },
      options: { type: 'object', properties: { depth: { type: 'integer', default: 2 }, mode: { type: ['string', 'null'] } } },
    },
  };
  const fields = describeFields(schema);

  it('keeps formats, booleans and required markers', () => {
    expect(field(fields, 'endpoint')).toMatchObject({ kind: 'text', format: 'uri', required: true, description: 'Where to send requests' });
    expect(field(fields, 'verbose')).toMatchObject({ kind: 'boolean', defaultValue: false, required: false });
  });

  it('turns lists of strings, numbers and enums into value lists', () => {
    expect(field(fields, 'tags')).toMatchObject({ kind: 'value_list', item: 'text', maxItems: 3 });
    expect(field(fields, 'weights')).toMatchObject({ kind: 'value_list', item: 'number' });
    expect(field(fields, 'levels')).toMatchObject({ kind: 'value_list', item: 'choice', options: ['low', 'high'] });
  });

  it('turns lists of objects into repeated groups, and nested objects into groups with paths below them', () => {
    const rules = field(fields, 'rules');
    expect(rules).toMatchObject({ kind: 'group_list', minItems: 1 });
    if (rules.kind !== 'group_list') throw new Error('not a group list');
    expect(rules.fields.map((inner) => [inner.key, inner.kind, inner.required])).toEqual([
      ['pattern', 'text', true],
      ['score', 'number', false],
    ]);
    expect(initialConfig(rules.itemSchema)).toEqual({ score: 1 });
    const options = field(fields, 'options');
    if (options.kind !== 'group') throw new Error('not a group');
    expect(options.fields.map((inner) => inner.path)).toEqual(['options.depth', 'options.mode']);
    expect(field(options.fields, 'mode')).toMatchObject({ kind: 'text' });
  });

  it('fills nested required objects with their defaults, and leaves lists without a default out', () => {
    expect(initialConfig(schema)).toEqual({ verbose: false, options: { depth: 2 } });
  });

  it('names every keyword it does not understand, wherever it is', () => {
    expect(
      unsupportedKeywords({
        type: 'object',
        oneOf: [],
        properties: { a: { type: 'string', $ref: '#/x' }, b: { type: 'array', items: { anyOf: [] } } },
      }),
    ).toEqual(['(config): oneOf', '(config).a: $ref', '(config).b[]: anyOf']);
    expect(unsupportedKeywords(schema)).toEqual([]);
  });
});
