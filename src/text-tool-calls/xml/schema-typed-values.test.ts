// Proves how XML-style values (Qwen3-Coder parameters, GLM arg values) are typed by JSON Schema: each
// declared type reads its own text, strings and undeclared parameters keep theirs, and text that fits
// no declared type stays text for the tool's validation to report.
import { describe, expect, it } from 'vitest';
import { schemaTypes, trimTagLineBreaks, typedValue } from './schema-typed-values.js';

describe('typedValue', () => {
  it.each([
    [' 42 ', { type: 'integer' }, 42],
    ['4.0', { type: 'integer' }, '4.0'],
    ['99999999999999999999', { type: 'integer' }, '99999999999999999999'],
    ['-1.25e3', { type: 'number' }, -1250],
    ['TRUE', { type: 'boolean' }, true],
    ['yes', { type: 'boolean' }, 'yes'],
    ['None', { type: ['string', 'null'] }, null],
    ['[1, 2]', { type: 'array' }, [1, 2]],
    ["['py', True]", { type: 'array' }, ['py', true]],
    ['{"a": 1}', { type: 'object' }, { a: 1 }],
    ['[1]', { type: 'object' }, '[1]'],
    ['007', { type: 'string' }, '007'],
    ['  spaced  ', { type: 'string' }, '  spaced  '],
    ['12', undefined, '12'],
    ['12', { description: 'no type' }, '12'],
    ['7', { oneOf: [{ type: 'string' }, { type: 'integer' }] }, 7],
  ])('reads %j with %j as %j', (raw, schema, value) => {
    expect(typedValue(raw, schema)).toEqual(value);
  });
});

describe('schemaTypes', () => {
  it('gathers types from type lists and anyOf/oneOf branches', () => {
    expect([...schemaTypes({ type: ['integer', 'null'], anyOf: [{ type: 'string' }] })].sort()).toEqual(['integer', 'null', 'string']);
  });
});

describe('trimTagLineBreaks', () => {
  it('removes the one line break after an opening tag and before a closing one, nothing else', () => {
    expect(trimTagLineBreaks('\n  indented\n\n')).toBe('  indented\n');
    expect(trimTagLineBreaks('\r\nwindows\r\n')).toBe('windows');
    expect(trimTagLineBreaks('\n')).toBe('');
    expect(trimTagLineBreaks('inline')).toBe('inline');
  });
});
