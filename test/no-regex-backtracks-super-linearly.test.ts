// Proves no regular expression in src/ can backtrack super-linearly (issue 11, defects 5 and 6):
// every regex literal, every `new RegExp(…)`/`RegExp(…)`, every JSON Schema `pattern` (Ajv
// compiles those with the `u` flag and runs them on request bodies), the ajv-formats expression of
// every schema `format` named in src/ (`uuid`, and any added later), and every string given to
// `.match`/`.matchAll`/`.search` is found with the TypeScript parser, not by a regex over source
// text, and analysed by recheck. Formats that ajv-formats checks with code (`date-time`, `uri`)
// are not expressions and are left out. A `vulnerable` answer fails the suite naming file, line and
// pattern. An `unknown` answer (the analyser gave up or timed out) fails too, unless the pattern
// is in UNKNOWN_ACCEPTED with the reason it is safe; the list is empty today. A RegExp built from
// a non-literal source cannot be analysed as written, so each must be in DYNAMIC_SOURCES, keyed
// by file and the exact source expression, with why it is safe and sample sources (the shapes it
// takes at run time), which are analysed like literals. Test files are left out: they never see
// a request. The analyser runs in recheck's native agent process, one pattern at a time.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { check, type Diagnostics } from 'recheck';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { escapeRegExp } from '../src/text-tool-calls/scanning/terminator-search.js';

const SOURCE_ROOT = fileURLToPath(new URL('../src/', import.meta.url));

/** Where a pattern is written, what it is and how it is compiled. */
interface FoundPattern {
  file: string;
  line: number;
  kind: 'literal' | 'RegExp' | 'schema pattern' | 'schema format' | 'string method';
  source: string;
  flags: string;
}

/** A RegExp whose source is computed; found by file and the exact text of its source argument. */
interface DynamicSource {
  file: string;
  expression: string;
  why: string;
  samples: Array<{ source: string; flags: string }>;
}

const TERMINATOR_SAMPLES = [
  ['</tool_call>', '<tool_call>'],
  ['<|end|>', '<|return|>', '<|call|>', '<|start|>', '<|channel|>'],
  ['```'],
  ['[/THINK]'],
  ['</think>'],
];

const DYNAMIC_SOURCES: readonly DynamicSource[] = [
  {
    file: 'text-tool-calls/blocks/streamed-block.ts',
    expression: "terminators.map((terminator) => escapeRegExp(terminator.token)).join('|')",
    why: 'an alternation of fixed end tokens, each escaped by escapeRegExp; without quantifiers a match costs at most the longest token per position.',
    samples: TERMINATOR_SAMPLES.map((tokens) => ({ source: tokens.map(escapeRegExp).join('|'), flags: 'g' })),
  },
  {
    file: 'text-tool-calls/scanning/terminator-search.ts',
    expression: "tokens.map((token) => escapeRegExp(token)).join('|')",
    why: "an alternation of fixed tokens (end tokens and a quiet zone's open and close tags), each escaped by escapeRegExp; without quantifiers a match costs at most the longest token per position.",
    samples: [...TERMINATOR_SAMPLES, ['</tool_call>', '<tool_call>', '<arg_value>', '</arg_value>', '<arg_key>']].map((tokens) => ({
      source: tokens.map(escapeRegExp).join('|'),
      flags: 'g',
    })),
  },
  {
    file: 'text-tool-calls/syntax-table.ts',
    expression: '`[${escaped}]`',
    why: 'one character class of \\u-escaped code units: a match is one character, nothing to backtrack over.',
    samples: [{ source: '[\\u003c\\u005b\\u007b\\u0060\\u0066]', flags: 'g' }],
  },
];

/** Patterns recheck may answer `unknown` for, with why each is safe anyway. Empty: every pattern today gets a definite answer. */
const UNKNOWN_ACCEPTED: ReadonlyArray<{ source: string; why: string }> = [];

/** Methods of String that compile a string argument into a RegExp. */
const COMPILING_STRING_METHODS = new Set(['match', 'matchAll', 'search']);

/** The expression ajv-formats checks a named format with; undefined for formats it checks with code, and for other uses of `format`. */
function formatExpression(name: string): RegExp | undefined {
  if (!Object.hasOwn(fullFormats, name)) return undefined;
  const definition: unknown = fullFormats[name as keyof typeof fullFormats];
  if (definition instanceof RegExp) return definition;
  const validate = (definition as { validate?: unknown } | undefined)?.validate;
  return validate instanceof RegExp ? validate : undefined;
}

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

function literalText(node: ts.Node | undefined): string | undefined {
  if (node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) return node.text;
  return undefined;
}

function isRegExpConstruction(node: ts.Node): node is ts.NewExpression | ts.CallExpression {
  return (ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp';
}

/**
 * A JSON Schema `pattern`: a property named so, unless it sits in an object of error wordings
 * keyed by keyword (`problems: { pattern: 'must be …' }`), which is text, not an expression.
 */
function isSchemaPattern(node: ts.Node): node is ts.PropertyAssignment {
  if (!ts.isPropertyAssignment(node) || !ts.isIdentifier(node.name) || node.name.text !== 'pattern') return false;
  const holder = node.parent.parent;
  return !(ts.isPropertyAssignment(holder) && ts.isIdentifier(holder.name) && holder.name.text === 'problems');
}

/** Every pattern in one file's text; `dynamic` receives the RegExp constructions whose source is computed. */
function patternsIn(file: string, text: string, dynamic: (expression: string, line: number) => void): FoundPattern[] {
  const sourceFile = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: FoundPattern[] = [];
  const lineOf = (node: ts.Node): number => sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile)).line + 1;
  const visit = (node: ts.Node): void => {
    if (ts.isRegularExpressionLiteral(node)) {
      const written = node.text;
      const lastSlash = written.lastIndexOf('/');
      found.push({ file, line: lineOf(node), kind: 'literal', source: written.slice(1, lastSlash), flags: written.slice(lastSlash + 1) });
    } else if (isRegExpConstruction(node)) {
      const [sourceArgument, flagsArgument] = node.arguments ?? [];
      const source = literalText(sourceArgument);
      if (source === undefined) dynamic(sourceArgument?.getText(sourceFile) ?? '', lineOf(node));
      else found.push({ file, line: lineOf(node), kind: 'RegExp', source, flags: literalText(flagsArgument) ?? '' });
    } else if (isSchemaPattern(node)) {
      const source = literalText(node.initializer);
      if (source === undefined) dynamic(node.initializer.getText(sourceFile), lineOf(node));
      else found.push({ file, line: lineOf(node), kind: 'schema pattern', source, flags: 'u' });
    } else if (
      ts.isPropertyAssignment(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === 'format' &&
      literalText(node.initializer) !== undefined
    ) {
      const expression = formatExpression(literalText(node.initializer)!);
      if (expression !== undefined)
        found.push({ file, line: lineOf(node), kind: 'schema format', source: expression.source, flags: expression.flags });
    } else if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      COMPILING_STRING_METHODS.has(node.expression.name.text)
    ) {
      const source = literalText(node.arguments[0]);
      if (source !== undefined) found.push({ file, line: lineOf(node), kind: 'string method', source, flags: '' });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  return found;
}

function collectPatterns(): { patterns: FoundPattern[]; unlisted: string[]; usedDynamic: Set<DynamicSource> } {
  const patterns: FoundPattern[] = [];
  const unlisted: string[] = [];
  const usedDynamic = new Set<DynamicSource>();
  for (const full of sourceFiles(SOURCE_ROOT)) {
    const file = path.relative(SOURCE_ROOT, full).split(path.sep).join('/');
    patterns.push(
      ...patternsIn(file, readFileSync(full, 'utf8'), (expression, line) => {
        const listed = DYNAMIC_SOURCES.find((entry) => entry.file === file && entry.expression === expression);
        if (listed === undefined) unlisted.push(`src/${file}:${line} new RegExp(${expression})`);
        else usedDynamic.add(listed);
      }),
    );
  }
  for (const entry of usedDynamic) {
    for (const sample of entry.samples)
      patterns.push({ file: entry.file, line: 0, kind: 'RegExp', source: sample.source, flags: sample.flags });
  }
  return { patterns, unlisted, usedDynamic };
}

async function analyse(source: string, flags: string): Promise<Diagnostics> {
  // The automaton checker decides most patterns exactly; `auto` falls back to fuzzing only for
  // large ones. The time-out is generous because two CPUs are shared by the whole suite.
  return check(source, flags, { checker: 'auto', timeout: 20_000 });
}

function describePattern(pattern: FoundPattern): string {
  const where = pattern.line === 0 ? `src/${pattern.file} (sample of a computed source)` : `src/${pattern.file}:${pattern.line}`;
  return `${where} ${pattern.kind} /${pattern.source}/${pattern.flags}`;
}

describe('no regular expression in src/ backtracks super-linearly', () => {
  const { patterns, unlisted, usedDynamic } = collectPatterns();
  const results: string[] = [];

  afterAll(() => {
    // The count and any finding stay visible in the run's output, without asserting on time.
    console.info(`ReDoS check: ${patterns.length} patterns analysed${results.length > 0 ? `; ${results.join('; ')}` : ''}`);
  });

  it('finds the patterns it must analyse (the collector is not silently blind)', () => {
    expect(patterns.length).toBeGreaterThan(80);
    const kinds = new Set(patterns.map((pattern) => pattern.kind));
    for (const kind of ['literal', 'RegExp', 'schema pattern'] as const) expect(kinds.has(kind), kind).toBe(true);
    expect(patterns.some((pattern) => pattern.file === 'files/file-paths.ts' && pattern.source === '[<>:"|?*%#/\\\\]')).toBe(true);
  });

  it('every RegExp built from a computed source is listed with why it is safe', () => {
    expect(unlisted, 'add each to DYNAMIC_SOURCES with the reason it cannot backtrack, or use a literal').toEqual([]);
    const stale = DYNAMIC_SOURCES.filter((entry) => !usedDynamic.has(entry)).map((entry) => `${entry.file}: ${entry.expression}`);
    expect(stale, 'entries of DYNAMIC_SOURCES that no longer match any code').toEqual([]);
  });

  it('recheck finds every pattern safe', { timeout: 600_000 }, async () => {
    const vulnerable: string[] = [];
    const unknown: string[] = [];
    for (const pattern of patterns) {
      const diagnostics = await analyse(pattern.source, pattern.flags);
      if (diagnostics.status === 'vulnerable') {
        vulnerable.push(`${describePattern(pattern)}: ${diagnostics.complexity.summary}, attack ${diagnostics.attack.pattern}`);
      } else if (diagnostics.status === 'unknown' && !UNKNOWN_ACCEPTED.some((accepted) => accepted.source === pattern.source)) {
        unknown.push(`${describePattern(pattern)}: ${diagnostics.error.kind}`);
      }
    }
    results.push(...vulnerable, ...unknown);
    expect(vulnerable, 'rewrite these as linear code (see src/text-trimming/trim-characters.ts) or an unambiguous pattern').toEqual([]);
    expect(
      unknown,
      'the analyser could not decide these; make them simpler or list them in UNKNOWN_ACCEPTED with why they are safe',
    ).toEqual([]);
  });
});

describe('the check itself can fail', () => {
  it('collects literals, RegExp calls, schema patterns and formats and string-method patterns, and reports computed sources', () => {
    const dynamic: string[] = [];
    const text = [
      'const a = /[ \\t]+$/gm;',
      "const b = new RegExp('x+y', 'i');",
      'const c = RegExp(`^z*$`);',
      "const d = { type: 'string', pattern: '^\\\\S+$' };",
      "const e = name.match('q+');",
      "const h = { type: 'string', format: 'uuid' };",
      "const i = { format: 'date-time', other: { format: 'hermes' } };",
      'const f = new RegExp(prefix + "x");',
      "const g = 'not a pattern';",
    ].join('\n');
    const found = patternsIn('sample.ts', text, (expression) => dynamic.push(expression));
    expect(found.map(({ kind, source, flags, line }) => ({ kind, source, flags, line }))).toEqual([
      { kind: 'literal', source: '[ \\t]+$', flags: 'gm', line: 1 },
      { kind: 'RegExp', source: 'x+y', flags: 'i', line: 2 },
      { kind: 'RegExp', source: '^z*$', flags: '', line: 3 },
      { kind: 'schema pattern', source: '^\\S+$', flags: 'u', line: 4 },
      { kind: 'string method', source: 'q+', flags: '', line: 5 },
      { kind: 'schema format', source: formatExpression('uuid')!.source, flags: 'i', line: 6 },
    ]);
    expect(dynamic).toEqual(['prefix + "x"']);
  });

  it.each([
    ['trailing spaces per line (normalizeText before issue 11)', '[ \\t]+$', 'gm'],
    ['an ATX heading (markdown-sections before issue 11)', '^ {0,3}(#{1,6})(?:[ \\t]+(.*?))?[ \\t]*$', ''],
    ['trailing dots and spaces of a file name (sanitizeFileName before issue 11)', '^[ .]+|[ .]+$', 'g'],
  ])('recheck reports %s as vulnerable', async (_name, source, flags) => {
    expect((await analyse(source, flags)).status).toBe('vulnerable');
  });
});
