// Proves every function that handles user text gives the correct result for long runs of the
// characters that make backtracking expressions slow: spaces, tabs, dots, `#`, `<`, `[`, `{`, `(`,
// backslashes and quotes, hundreds of thousands of them (issue 11, defects 5 and 6). The inputs of
// the issue are here at twice their size or more: `x` + spaces + `x` through normalisation, a
// heading `# x` + spaces, `<pre>` + spaces, and a file name of `x` + dots + `x.txt`. Nothing here
// measures time; the expressions these functions used before took minutes over these inputs,
// far past the suite's time-out, and the answers are checked exactly.
import { describe, expect, it } from 'vitest';
import { sanitizeFileName } from '../src/files/file-paths.js';
import { chunkSections, splitText } from '../src/document-reading/chunking.js';
import { normalizeText } from '../src/document-reading/extraction.js';
import { htmlToMarkdown } from '../src/document-reading/html-to-markdown.js';
import { splitMarkdownSections } from '../src/document-reading/markdown-sections.js';
import { sanitizeFunctionName } from '../src/pipeline/tool-loop/function-tools.js';
import { substitutePlaceholders } from '../src/pipeline/templates/template-rendering.js';
import { SAMPLE_TOOLS } from '../src/text-tool-calls/format-samples.js';
import { TextToolCallParser, type TextParserEvent } from '../src/text-tool-calls/index.js';
import { looseArrayElements, looseObjectMembers } from '../src/text-tool-calls/json/loose-json.js';
import { parsePythonKeywordArguments, parsePythonLiteral } from '../src/text-tool-calls/python/python-literals.js';
import { typedValue } from '../src/text-tool-calls/xml/schema-typed-values.js';
import { AppError } from '../src/errors/app-error.js';
import { readRubricDraft, requireRubricReference, type RubricDocument } from '../src/rubrics/rubric-document.js';
import { evaluationInstructions, rubricToMarkdown } from '../src/rubrics/rubric-rendering.js';

/** The length of every run below: well past the 60,000 to 120,000 characters of the issue. */
const RUN = 250_000;
const spaces = ' '.repeat(RUN);
const tabs = '\t'.repeat(RUN);
const dots = '.'.repeat(RUN);

describe('normalising extracted text', () => {
  it('keeps a long run of spaces inside a line (x + spaces + x)', () => {
    expect(normalizeText(`x${spaces}x`)).toBe(`x${spaces}x`);
  });

  it('drops long runs of spaces and tabs at the ends of lines, whatever the line break', () => {
    expect(normalizeText(`x${spaces}\r\n${tabs}\ry${spaces}${tabs}\u2028z${spaces}`)).toBe(`x\n\ny\u2028z`);
  });

  it('keeps long runs of dots, backslashes and quotes as they are', () => {
    const text = `${dots}${'\\'.repeat(RUN)}${'"'.repeat(RUN)}'`;
    expect(normalizeText(text)).toBe(text);
  });
});

describe('splitting Markdown at its headings', () => {
  it('reads a heading `# x` followed by a long run of spaces', () => {
    expect(splitMarkdownSections(`# x${spaces}`)).toEqual([{ text: '# x', heading: 'x' }]);
    expect(splitMarkdownSections(`# x${spaces}\nbody`)).toEqual([{ text: '# x\n\nbody', heading: 'x' }]);
  });

  it('takes `# x` + spaces + a line terminator other than \\n for text, not a heading', () => {
    expect(splitMarkdownSections(`# x${spaces}\u2028`)).toEqual([{ text: '# x' }]);
    expect(splitMarkdownSections(`#\t${spaces}\r`)).toEqual([{ text: '#' }]);
  });

  it('keeps spaces inside a heading and drops a closing sequence after them', () => {
    expect(splitMarkdownSections(`## x${spaces}y${tabs}###${spaces}`)).toEqual([{ text: `## x${spaces}y`, heading: `x${spaces}y` }]);
    const hashes = ' #'.repeat(RUN / 2);
    expect(splitMarkdownSections(`# a${hashes}`)).toEqual([
      { text: `# a${' #'.repeat(RUN / 2 - 1)}`, heading: `a${' #'.repeat(RUN / 2 - 1)}` },
    ]);
  });

  it('takes a long run of `#` for text, not a heading', () => {
    const hashes = '#'.repeat(RUN);
    expect(splitMarkdownSections(hashes)).toEqual([{ text: hashes }]);
    expect(splitMarkdownSections(`# ${hashes}`)).toEqual([{ text: `# ${hashes}` }]);
    expect(splitMarkdownSections(`#${spaces}#x`)).toEqual([{ text: '# #x', heading: '#x' }]);
  });

  it('closes a fence with a long run of backticks and not with a run of spaces', () => {
    expect(splitMarkdownSections(`\`\`\`\n# inside\n${'`'.repeat(RUN)}${spaces}\n# After`).map((section) => section.heading)).toEqual([
      undefined,
      'After',
    ]);
    expect(splitMarkdownSections(`\`\`\`\n${spaces}\n# inside`).map((section) => section.heading)).toEqual([undefined]);
  });

  it('reads a setext heading underlined by a long run of `=` and spaces', () => {
    expect(splitMarkdownSections(`Title\n${'='.repeat(RUN)}${spaces}\nbody`)).toEqual([{ text: '# Title\n\nbody', heading: 'Title' }]);
    expect(splitMarkdownSections(`Title\n${'= '.repeat(RUN / 2)}`)).toEqual([{ text: `Title\n${'= '.repeat(RUN / 2).trimEnd()}` }]);
  });
});

describe('turning HTML into Markdown', () => {
  it('drops a <pre> of only spaces and keeps the text of one that ends in spaces', () => {
    expect(htmlToMarkdown(`<pre>${spaces}</pre>`)).toBe('');
    expect(htmlToMarkdown(`<pre>x${spaces}</pre>`)).toBe('```\nx\n```');
    expect(htmlToMarkdown(`<pre>${spaces}x${spaces}`)).toBe(`\`\`\`\n${spaces}x\n\`\`\``);
  });

  it('collapses long runs of white space in headings and paragraphs', () => {
    expect(htmlToMarkdown(`<h1>${spaces}x${tabs}</h1><p>a${spaces}${tabs}b</p>`)).toBe('# x\n\na b');
  });

  it('reads long runs of `<`, brackets, backslashes and quotes as text', () => {
    const text = `${'<'.repeat(RUN)}${'['.repeat(RUN)}${'{'.repeat(RUN)}${'('.repeat(RUN)}`;
    expect(htmlToMarkdown(text)).toBe(text);
    expect(htmlToMarkdown(`<p>${'\\'.repeat(RUN)}${'"'.repeat(RUN)}</p>`)).toBe(`${'\\'.repeat(RUN)}${'"'.repeat(RUN)}`);
  });

  it('survives tags with endless attributes and entities', () => {
    expect(htmlToMarkdown(`<a href="${spaces}`)).toBe('');
    expect(htmlToMarkdown(`<div ${'/'.repeat(RUN)}>x</div>`)).toBe('x');
    expect(htmlToMarkdown(`<div ${'a='.repeat(RUN / 2)}>x</div>`)).toBe('x');
    expect(htmlToMarkdown(`<p>${'&'.repeat(RUN)}</p>`)).toBe('&'.repeat(RUN));
    expect(htmlToMarkdown(`<script>${'<'.repeat(RUN)}</script>y`)).toBe('y');
  });
});

describe('chunking', () => {
  /** Every chunk a piece of the text, in order, none empty or longer than the chunk size, the first at its start and the last at its end. */
  function expectCoveringChunks(text: string, chunks: readonly string[], size: number): void {
    expect(chunks.length).toBeGreaterThan(0);
    let from = 0;
    for (const chunk of chunks) {
      expect(chunk.length).toBeGreaterThan(0);
      expect(chunk.length).toBeLessThanOrEqual(size);
      const at = text.indexOf(chunk, from === 0 ? 0 : from - size);
      expect(at).toBeGreaterThanOrEqual(0);
      from = at + chunk.length;
    }
    expect(text.startsWith(chunks[0]!)).toBe(true);
    expect(text.endsWith(chunks[chunks.length - 1]!)).toBe(true);
  }

  it('gives nothing for a text of only spaces', () => {
    expect(splitText(spaces)).toEqual([]);
  });

  it.each([
    ['x + dots + x', `x${dots}x`],
    ['sentences of dots', '. '.repeat(RUN / 2)],
    ['brackets and quotes', `${'['.repeat(RUN / 4)}${'"'.repeat(RUN / 4)}${'('.repeat(RUN / 4)}${'\\'.repeat(RUN / 4)}`],
    ['paragraphs of spaces', `a${spaces}\n\n${spaces}b`],
  ])('cuts %s into bounded pieces that cover it', (_name, text) => {
    expectCoveringChunks(text.trim(), splitText(text.trim(), { chunkSize: 1000, chunkOverlap: 0 }), 1000);
  });

  it('numbers the chunks of a long section of dots and keeps its heading', () => {
    const chunks = chunkSections([{ text: `# T\n\nx${dots}x`, heading: 'T' }], { chunkSize: 1000, chunkOverlap: 100 });
    expect(chunks.length).toBeGreaterThan(RUN / 1000);
    expect(chunks.every((chunk) => chunk.heading === 'T' && chunk.text.length <= 1000)).toBe(true);
  });
});

describe('naming uploaded files and functions', () => {
  it('keeps dots inside a name of x + dots + x.txt and cuts it to the name limit', () => {
    expect(sanitizeFileName(`x${dots}x.txt`)).toBe(`x${'.'.repeat(155)}.txt`);
  });

  it('drops long runs of dots and spaces at both ends', () => {
    expect(sanitizeFileName(`${dots}${spaces}notes.txt${spaces}${dots}`)).toBe('notes.txt');
    expect(sanitizeFileName(`${dots}${spaces}${dots}`)).toBe('file');
    expect(sanitizeFileName(`a${tabs}b.txt`)).toBe('a b.txt');
  });

  it('turns long runs of reserved characters, backslashes and quotes into something safe', () => {
    expect(sanitizeFileName(`${'\\'.repeat(RUN)}report.txt`)).toBe('report.txt');
    expect(sanitizeFileName(`"${'<'.repeat(RUN)}"a.txt`)).toBe(`${'_'.repeat(156)}.txt`);
  });

  it('makes a function name out of underscores and punctuation', () => {
    expect(sanitizeFunctionName(`${'_'.repeat(RUN)}a${'_'.repeat(RUN)}!`)).toBe('a');
    expect(sanitizeFunctionName(`${'_'.repeat(RUN)}a${'_'.repeat(RUN)}b`)).toBe(`a${'_'.repeat(63)}`);
    expect(sanitizeFunctionName(`${spaces}${dots}`)).toBe('tool');
  });
});

describe('rendering templates', () => {
  it('fills a placeholder wrapped in long runs of braces', () => {
    const known = new Set(['user_input']);
    const braces = '{'.repeat(RUN);
    expect(substitutePlaceholders(`${braces}{user_input}${'}'.repeat(RUN)}`, { user_input: 'hi' }, known)).toBe(
      `${braces}hi${'}'.repeat(RUN)}`,
    );
    expect(substitutePlaceholders(`${'{a'.repeat(RUN / 2)}{user_input}`, { user_input: 'hi' }, known)).toBe(`${'{a'.repeat(RUN / 2)}hi`);
  });
});

describe('the text tool-call parser', () => {
  function parseAll(text: string): TextParserEvent[] {
    const parser = new TextToolCallParser({ tools: SAMPLE_TOOLS, format: 'auto' });
    return [...parser.push(text), ...parser.end()];
  }
  const textOf = (events: readonly TextParserEvent[]): string =>
    events.flatMap((event) => (event.type === 'text' ? [event.text] : [])).join('');

  it.each([
    ['spaces', spaces],
    ['tabs and line breaks', `${tabs}\n${spaces}`],
    ['backslashes', '\\'.repeat(RUN)],
    ['quotes', `${'"'.repeat(RUN)}${"'".repeat(RUN)}`],
    ['parentheses', '('.repeat(RUN)],
    ['a call name and spaces', `get_weather(${spaces}`],
    ['dots', dots],
    ['# and <', `${'#'.repeat(RUN)}${'<'.repeat(RUN)}`],
  ])('hands a long run of %s on as text, unchanged', (_name, text) => {
    const events = parseAll(text);
    expect(events.some((event) => event.type === 'tool-call')).toBe(false);
    expect(textOf(events)).toBe(text);
  });

  it('still finds a call after a long run of spaces', () => {
    const events = parseAll(`${spaces}<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>`);
    const calls = events.flatMap((event) => (event.type === 'tool-call' ? [event] : []));
    expect(calls.map((call) => [call.name, JSON.parse(call.argumentsJson)])).toEqual([['get_weather', { city: 'Paris' }]]);
    expect(textOf(events)).toBe(spaces);
  });
});

describe('loose JSON and Python literals', () => {
  it('reads object members separated by long runs of spaces', () => {
    expect(looseObjectMembers(`{"a":${spaces}1${spaces},${spaces}"b": ${'['.repeat(RUN)}`)).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: '['.repeat(RUN) },
    ]);
  });

  it('reads array elements made of backslashes and quotes', () => {
    const string = `"${'\\\\'.repeat(RUN / 2)}"`;
    expect(looseArrayElements(`[${string},${spaces}${'{'.repeat(RUN)}`)).toEqual([string, '{'.repeat(RUN)]);
  });

  it('reads numbers with long runs of underscores and refuses ones that end badly', () => {
    const underscores = '_'.repeat(RUN);
    expect(parsePythonLiteral(`1${underscores}`)).toEqual({ value: 1 });
    expect(parsePythonLiteral(`1${underscores}.${underscores}5`)).toEqual({ value: 1.5 });
    expect(parsePythonLiteral(`1${underscores}.${underscores}x`)).toBeUndefined();
    expect(parsePythonLiteral('['.repeat(RUN))).toBeUndefined();
  });

  it('reads keyword arguments holding long runs of spaces, quotes and backslashes', () => {
    expect(parsePythonKeywordArguments(`city="${spaces}", note='${'\\\\'.repeat(RUN / 2)}'`)).toEqual({
      city: spaces,
      note: '\\'.repeat(RUN / 2),
    });
  });

  it('types a long run of digits that is no number as the text it is', () => {
    const digits = `${'1'.repeat(RUN)}x`;
    expect(typedValue(digits, { type: 'number' })).toBe(digits);
    expect(typedValue(`1${'0'.repeat(300)}.${'0'.repeat(RUN)}`, { type: 'number' })).toBe(1e300);
  });
});

describe('rubrics', () => {
  const rubric = (title: string, description: string): RubricDocument => ({
    rubricId: 'rubric-0001',
    title,
    description: '',
    metadata: { createdAt: '2026-01-01T00:00:00Z', modifiedAt: '2026-01-01T00:00:00Z' },
    criteria: [{ id: 'c1', name: 'Clarity', description, weight: 1, levels: [{ id: 'l1', score: 1, label: 'Good', description }] }],
    scoringType: 'points',
    maxScore: 10,
  });

  it('renders titles and descriptions with long runs of white space, pipes and backslashes', () => {
    expect(evaluationInstructions(rubric(`a${spaces}\n${spaces}b`, 'x')).task).toContain('rubric "a b".');
    expect(evaluationInstructions(rubric(`a${spaces}b`, 'x')).task).toContain(`rubric "a${spaces}b".`);
    const markdown = rubricToMarkdown(rubric('T', `${'|'.repeat(RUN)}${'\\'.repeat(RUN)}`));
    expect(markdown).toContain(`${'\\|'.repeat(RUN)}${'\\\\'.repeat(RUN)}`);
  });

  it('refuses a title or reference made of a long run of characters with a clear problem', () => {
    const read = (): unknown => readRubricDraft({ title: spaces, criteria: [], scoringType: 'points', maxScore: 10 }, { strict: true });
    expect(read).toThrow(AppError);
    expect(() => requireRubricReference(dots, 'rubric_id')).toThrow(/"rubric_id" must be 1 to 200 letters/);
  });
});
