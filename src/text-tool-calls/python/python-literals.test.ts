// Proves the Python literal reader that pythonic calls use: it reads what Python would, refuses what
// is not a literal (names, calls, positional arguments), and never recurses without bound.
import { describe, expect, it } from 'vitest';
import { parsePythonKeywordArguments, parsePythonLiteral } from './python-literals.js';

describe('parsePythonLiteral', () => {
  it.each([
    ["'single'", 'single'],
    ['"double \\"quoted\\""', 'double "quoted"'],
    ["'''tripled\nacross lines'''", 'tripled\nacross lines'],
    ["r'C:\\new'", 'C:\\new'],
    ["'tab\\there \\u00e9 \\x41'", 'tab\there é A'],
    ['\'joined\' "strings"', 'joinedstrings'],
    ['-42', -42],
    ['1_000_000', 1000000],
    ['0x1f', 31],
    ['0b101', 5],
    ['3.5e-1', 0.35],
    ['.5', 0.5],
    ['True', true],
    ['None', null],
    ['false', false],
    ['[1, (2, 3), {4}]', [1, [2, 3], [4]]],
    ["{'a': [1, 2], 2: 'two', 'nested': {'x': None},}", { a: [1, 2], '2': 'two', nested: { x: null } }],
    ['{}', {}],
    ['()', []],
  ])('reads %s', (text, value) => {
    expect(parsePythonLiteral(text)).toEqual({ value });
  });

  it.each(['undefined_name', 'f(1)', "'unterminated", "'new\nline'", '[1, 2', '1 2', '{1: }'])('refuses %s', (text) => {
    expect(parsePythonLiteral(text)).toBeUndefined();
  });

  it('refuses nesting deeper than it will recurse', () => {
    expect(parsePythonLiteral(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)).toBeUndefined();
  });
});

describe('parsePythonKeywordArguments', () => {
  it('reads keyword arguments into an object', () => {
    expect(parsePythonKeywordArguments(' city = "Paris", days=3 , tags=["a"] ')).toEqual({ city: 'Paris', days: 3, tags: ['a'] });
  });

  it('reads no arguments as an empty object', () => {
    expect(parsePythonKeywordArguments('  ')).toEqual({});
  });

  it.each(['"Paris"', 'city=Paris', 'city="Paris" days=3', '1x=2'])('refuses %s', (text) => {
    expect(parsePythonKeywordArguments(text)).toBeUndefined();
  });
});
