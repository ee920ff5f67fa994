// Proves the "Sources" block numbers entries as the sources come, links only http(s) URLs, and
// escapes titles so a document's name cannot add markdown, links or lines to the answer.
import { describe, expect, it } from 'vitest';
import { sourcesBlock } from './sources-block.js';

describe('sourcesBlock', () => {
  it('numbers the sources in order and links each to what the link maker gives', () => {
    const block = sourcesBlock([{ title: 'a.md', page: 2, section: 'Intro' }, { title: 'b.md' }], (source) =>
      source.title === 'a.md' ? 'https://merino.test/sources/t' : undefined,
    );
    expect(block).toBe('\n\n**Sources**\n\n1. [a.md \\(Intro, p. 2\\)](https://merino.test/sources/t)\n2. b.md\n');
  });

  it('is absent without sources', () => {
    expect(sourcesBlock([], () => undefined)).toBeUndefined();
  });

  it('escapes a hostile title and never links a javascript: URL', () => {
    const block = sourcesBlock([{ title: '](javascript:alert(1)) *x*\n# Heading', url: 'javascript:alert(1)' }], () => undefined)!;
    expect(block).toContain('1. \\]\\(javascript:alert\\(1\\)\\) \\*x\\* \\# Heading');
    expect(block).not.toContain('](javascript');
    expect(block.split('\n').filter((line) => line.startsWith('1.'))).toHaveLength(1);
  });

  it('keeps a parenthesis in a source URL from ending the link', () => {
    const block = sourcesBlock([{ title: 'Wiki', url: 'https://example.test/a_(b)' }], () => undefined)!;
    expect(block).toContain('[Wiki](https://example.test/a_%28b%29)');
  });
});
