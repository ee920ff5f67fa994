/**
 * Proves that `defineTool` types a tool from its own schemas: `config` and the model's arguments
 * get the shapes their schemas written `as const` describe (defaults make a field present), a
 * schema the compiler cannot read gives a plain record, and the core receives the definition as
 * it was written. The type expectations are checked by the compiler (`npx tsc`), the rest by vitest.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineTool, toolKind, type SchemaValue, type ToolSchema } from './tool-definition.js';

const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['collections'],
  properties: {
    collections: { type: 'array', items: { type: 'string' } },
    top_k: { type: 'integer', minimum: 1, default: 3 },
    mode: { type: 'string', enum: ['fast', 'thorough'] },
  },
} as const;

const parameters = {
  type: 'object',
  additionalProperties: false,
  required: ['query'],
  properties: { query: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
} as const;

describe('defineTool', () => {
  it('gives config and arguments the types their schemas describe', () => {
    expectTypeOf<SchemaValue<typeof configSchema>>().toEqualTypeOf<{
      collections: string[];
      top_k: number;
      mode?: 'fast' | 'thorough';
    }>();
    expectTypeOf<SchemaValue<typeof parameters>>().toEqualTypeOf<{ query: string; unit?: 'celsius' | 'fahrenheit' }>();

    const definition = defineTool({
      name: 'typed',
      displayName: 'Typed',
      description: 'test',
      category: 'test',
      version: '1',
      configSchema,
      placeholder: 'context',
      status: (config) => `searching ${config.collections.join(', ')} for ${config.top_k}`,
      provide: async (_context, config) => ({ content: config.collections.join(', ') }),
      function: {
        describe: (config) => ({ name: 'typed', description: config.mode ?? 'fast' }),
        parameters,
        async call(argumentsFromModel, _context, config) {
          expectTypeOf(argumentsFromModel.query).toEqualTypeOf<string>();
          expectTypeOf(config.top_k).toEqualTypeOf<number>();
          return { content: argumentsFromModel.query };
        },
      },
    });
    expect(definition.configSchema).toBe(configSchema);
    expect(definition.function?.parameters).toBe(parameters);
    expect(toolKind(definition)).toBe('context+function');
  });

  it('hands the core a definition whose configs and arguments are plain records', () => {
    expectTypeOf<SchemaValue<ToolSchema>>().toEqualTypeOf<Record<string, unknown>>();
    const definition = defineTool({
      name: 'loose',
      displayName: 'Loose',
      description: 'test',
      category: 'test',
      version: '1',
      configSchema: { type: 'object' },
      function: {
        describe: () => ({ name: 'loose', description: 'test' }),
        parameters: { type: 'object', required: ['word'], properties: { word: { type: 'string' } } },
        async call(argumentsFromModel) {
          expectTypeOf(argumentsFromModel).toEqualTypeOf<Record<string, unknown>>();
          return { content: String(argumentsFromModel.word) };
        },
      },
    });
    expectTypeOf<Parameters<NonNullable<typeof definition.function>['call']>[0]>().toEqualTypeOf<Record<string, unknown>>();
    expect(toolKind(definition)).toBe('function');
  });
});
