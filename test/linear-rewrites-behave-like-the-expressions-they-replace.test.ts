// Proves the code that replaced the backtracking regular expressions of issue 11 answers exactly
// what those expressions answered, on random short texts over the characters that matter (the old
// expressions are the oracle here; short inputs keep them fast): text normalisation, ATX headings
// and closing fences in Markdown, rubric lines, function names, file names, and the number
// grammars of the text tool-call parser. Fixed seeds, so a failure reproduces.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitizeFileName } from '../src/files/file-paths.js';
import { normalizeText } from '../src/document-reading/extraction.js';
import { splitMarkdownSections } from '../src/document-reading/markdown-sections.js';
import { sanitizeFunctionName } from '../src/pipeline/tool-loop/function-tools.js';
import { parsePythonLiteral } from '../src/text-tool-calls/python/python-literals.js';
import { typedValue } from '../src/text-tool-calls/xml/schema-typed-values.js';
import type { RubricDocument } from '../src/rubrics/rubric-document.js';
import { evaluationInstructions } from '../src/rubrics/rubric-rendering.js';

const SEED = 11;
const RUNS = { seed: SEED, numRuns: 3_000 };
const textOf = (alphabet: string[], maxLength = 30): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...alphabet), { maxLength }).map((characters) => characters.join(''));

/** normalizeText as it was before issue 11. */
function oldNormalizeText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\f/g, '\n\n')
    .replace(/\v/g, '\n')
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\ufffd')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '')
    .normalize('NFC')
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The heading the old ATX expression read from one line, undefined when it read none. */
function oldAtxHeading(line: string): { level: number; text: string } | undefined {
  const match = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/.exec(line);
  if (match === null) return undefined;
  const text = (match[2] ?? '').replace(/(?:^|[ \t]+)#+$/, '').trim();
  return text === '' ? undefined : { level: match[1]!.length, text };
}

function rubricTitled(title: string): RubricDocument {
  return {
    rubricId: 'rubric-0001',
    title,
    description: '',
    metadata: { createdAt: '2026-01-01T00:00:00Z', modifiedAt: '2026-01-01T00:00:00Z' },
    criteria: [
      {
        id: 'c1',
        name: 'Clarity',
        description: 'Clear.',
        weight: 1,
        levels: [{ id: 'l1', score: 1, label: 'Good', description: 'Good.' }],
      },
    ],
    scoringType: 'points',
    maxScore: 10,
  };
}

describe('the linear rewrites answer what the old expressions answered', () => {
  it('normalizeText', () => {
    const alphabet = [' ', '\t', '\n', '\r', '\f', '\v', '\u2028', '\u2029', '\u00a0', 'a', 'e\u0301', '\u0000', '\ud800'];
    fc.assert(
      fc.property(textOf(alphabet), (text) => normalizeText(text) === oldNormalizeText(text)),
      RUNS,
    );
  });

  it('ATX headings: one line is a heading with the same level and text, or none', () => {
    // Lines shaped like headings: a few spaces, a run of `#`s, then anything from the characters that matter.
    const lines = fc
      .tuple(
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 8 }),
        textOf([' ', ' ', '\t', '#', '#', 'a', 'b', '\r', '\u2028', '\u00a0'], 14),
      )
      .map(([spaces, hashes, rest]) => `${' '.repeat(spaces)}${'#'.repeat(hashes)}${rest}`);
    fc.assert(
      fc.property(lines, (line) => {
        const heading = oldAtxHeading(line);
        const expected =
          heading === undefined
            ? line.trim() === ''
              ? []
              : [{ text: line.trim() }]
            : [{ text: `${'#'.repeat(heading.level)} ${heading.text}`, heading: heading.text }];
        expect(splitMarkdownSections(line)).toEqual(expected);
      }),
      RUNS,
    );
  });

  it('closing fences: a fence closes exactly when the old expression said it did', () => {
    const fences = fc.record({ character: fc.constantFrom('`', '~'), length: fc.integer({ min: 3, max: 5 }) });
    const candidates = textOf([' ', '\t', '`', '~', 'a'], 12);
    fc.assert(
      fc.property(fences, candidates, (fence, candidate) => {
        const closes = new RegExp(`^ {0,3}${fence.character === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`).test(candidate);
        const markdown = [fence.character.repeat(fence.length), 'code', candidate, '# After'].join('\n');
        const headings = splitMarkdownSections(markdown).map((section) => section.heading);
        expect(headings.includes('After')).toBe(closes);
      }),
      RUNS,
    );
  });

  it('rubric lines: each run of white space holding a line break becomes one space', () => {
    fc.assert(
      fc.property(textOf([' ', '\t', '\n', '\r', '\u00a0', 'a']), (title) => {
        const expected = title.replace(/\s*\r?\n\s*/g, ' ').trim();
        expect(evaluationInstructions(rubricTitled(title)).task).toContain(`rubric "${expected}".`);
      }),
      RUNS,
    );
  });

  it('function names', () => {
    fc.assert(
      fc.property(textOf(['_', '_', 'a', ' ', '-', 'é']), (name) => {
        const cleaned = name.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '');
        return sanitizeFunctionName(name) === (cleaned === '' ? 'tool' : cleaned).slice(0, 64);
      }),
      RUNS,
    );
  });

  it('file names', () => {
    // sanitizeFileName as it was, for names made only of dots, spaces and letters (the other steps
    // do nothing to those, and they are far below the length limits).
    const oldSanitizeFileName = (name: string): string => {
      const cleaned = name.replace(/ {2,}/g, ' ').replace(/^[ .]+|[ .]+$/g, '');
      const dot = cleaned.lastIndexOf('.');
      const extension = dot > 0 ? cleaned.slice(dot + 1).toLowerCase() : '';
      const base = (extension === '' ? cleaned : cleaned.slice(0, cleaned.length - extension.length - 1)).trimEnd();
      return extension === '' ? base || 'file' : `${base || 'file'}.${extension}`;
    };
    fc.assert(
      fc.property(textOf(['.', '.', ' ', 'a', 'B'], 20), (stem) => sanitizeFileName(`${stem}.TXT`) === oldSanitizeFileName(`${stem}.TXT`)),
      RUNS,
    );
    fc.assert(
      fc.property(textOf(['.', ' ', 'a'], 20), (name) => sanitizeFileName(name) === oldSanitizeFileName(name)),
      RUNS,
    );
  });

  it('numbers typed by a JSON Schema', () => {
    const old = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$/;
    fc.assert(
      fc.property(textOf(['1', '0', '.', 'e', '+', '-', ' '], 10), (raw) => {
        const text = raw.trim();
        expect(typedValue(raw, { type: 'number' })).toEqual(old.test(text) ? Number(text) : raw);
      }),
      RUNS,
    );
  });

  it('Python number literals', () => {
    const old = /^[-+]?(?:0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][-+]?\d+)?)$/;
    fc.assert(
      fc.property(textOf(['1', '0', '_', '.', 'e', '+', '-'], 10), (word) => {
        const result = parsePythonLiteral(word);
        if (!old.test(word)) return result === undefined;
        const digits = word.replaceAll('_', '');
        const magnitude = Number(digits.replace(/^[-+]/, ''));
        const expected = Number.isFinite(magnitude) ? (digits.startsWith('-') ? -magnitude : magnitude) : undefined;
        return expected === undefined ? result === undefined : Object.is(result?.value, expected);
      }),
      RUNS,
    );
  });
});
