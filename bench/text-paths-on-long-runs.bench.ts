/**
 * Benchmark of the text paths issue 11 found quadratic (defects 5 and 6): each input of the
 * issue's reproductions, at its size and at twice and four times it, through the code that
 * handles it now (normalizeText, splitMarkdownSections, htmlToMarkdown, sanitizeFileName), and,
 * for comparison, through the expression each used before, at an eighth of the size (at
 * full size the old expressions take seconds to minutes each).
 *
 *   npm run bench -- bench/text-paths-on-long-runs.bench.ts
 *
 * It prints milliseconds per call; linear code roughly doubles from one column to the next,
 * quadratic code quadruples. It never passes or fails on a time; it checks only the answers.
 */
import { describe, expect, it } from 'vitest';
import { sanitizeFileName } from '../src/files/file-paths.js';
import { normalizeText } from '../src/document-reading/extraction.js';
import { htmlToMarkdown } from '../src/document-reading/html-to-markdown.js';
import { splitMarkdownSections } from '../src/document-reading/markdown-sections.js';
import { milliseconds, printTable } from './support/measure.js';

interface Case {
  name: string;
  /** The length of the run. */
  run: number;
  input: (run: number) => string;
  now: (input: string) => unknown;
  before: (input: string) => unknown;
}

const CASES: readonly Case[] = [
  {
    name: 'x + spaces + x in a .txt',
    run: 120_000,
    input: (run) => `x${' '.repeat(run)}x`,
    now: normalizeText,
    before: (input) => input.replace(/[ \t]+$/gm, ''),
  },
  {
    // A line separator after the spaces keeps the old expression from ever matching (recheck's attack).
    name: '# x + spaces + U+2028 in a .md',
    run: 60_000,
    input: (run) => `# x${' '.repeat(run)}\u2028`,
    now: splitMarkdownSections,
    before: (input) => /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/.exec(input),
  },
  {
    name: '<pre> + spaces in an .html',
    run: 60_000,
    input: (run) => `<pre>${' '.repeat(run)}x`,
    now: htmlToMarkdown,
    before: (input) => `${input}x`.replace(/\s+$/, ''),
  },
  {
    name: 'x + dots + x.txt as a file name',
    run: 78_000,
    input: (run) => `x${'.'.repeat(run)}x.txt`,
    now: sanitizeFileName,
    before: (input) => input.replace(/^[ .]+|[ .]+$/g, ''),
  },
];

function timed(call: () => unknown): number {
  const started = performance.now();
  call();
  return performance.now() - started;
}

describe('text paths on long runs', () => {
  it('prints milliseconds per call, now and before', () => {
    const rows = CASES.map((entry) => {
      const now = [1, 2, 4].map((factor) => milliseconds(timed(() => entry.now(entry.input(entry.run * factor)))));
      const before = [1 / 8, 1 / 4].map((factor) => milliseconds(timed(() => entry.before(entry.input(Math.round(entry.run * factor))))));
      return [entry.name, String(entry.run), ...now, ...before];
    });
    printTable(
      'Long runs through the text paths (ms per call; "before" is the old expression at 1/8 and 1/4 of the run)',
      [
        { label: 'input', width: 34 },
        { label: 'run', width: 8 },
        { label: 'now ×1', width: 9 },
        { label: 'now ×2', width: 9 },
        { label: 'now ×4', width: 9 },
        { label: 'before ×1/8', width: 12 },
        { label: 'before ×1/4', width: 12 },
      ],
      rows,
    );
    expect(normalizeText(`x${' '.repeat(120_000)}x`)).toBe(`x${' '.repeat(120_000)}x`);
    expect(sanitizeFileName(`x${'.'.repeat(78_000)}x.txt`)).toBe(`x${'.'.repeat(155)}.txt`);
  });
});
