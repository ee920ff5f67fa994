/**
 * The model's numbered citations as links to their passages: only `[n]` with a source becomes a
 * link, in this page; code, text already in a link, and anything the model wrote as HTML stay text.
 */
import { describe, expect, it } from 'vitest';
import { addCitationLinks, type CitationTargets } from './citation-links';
import { createMarkdown } from './markdown';

const markdown = addCitationLinks(createMarkdown({ copyCode: 'Copy', code: 'code' }));
const TARGETS: CitationTargets = { count: 2, targetId: (number) => `answer-source-${number}`, label: (number) => `Source ${number}` };

function render(text: string, citations: CitationTargets | null = TARGETS): string {
  return markdown.render(text, citations === null ? {} : { citations });
}

const link = (number: number): string =>
  `<a href="#answer-source-${number}" class="citation" aria-label="Source ${number}" data-citation="">[${number}]</a>`;

describe('citation links', () => {
  it('links each cited passage that exists, in this page', () => {
    expect(render('Light first [1], then sugar [2].')).toBe(`<p>Light first ${link(1)}, then sugar ${link(2)}.</p>\n`);
    expect(render('Both [1][2]')).toBe(`<p>Both ${link(1)}${link(2)}</p>\n`);
    expect(render('**Bold [1]**')).toBe(`<p><strong>Bold ${link(1)}</strong></p>\n`);
    expect(render('- item [2]')).toContain(`<li>item ${link(2)}</li>`);
  });

  it('leaves numbers with no source as text', () => {
    expect(render('See [3], [0], [999] and [1000].')).toBe('<p>See [3], [0], [999] and [1000].</p>\n');
    expect(render('Nothing to cite [1].', { ...TARGETS, count: 0 })).toBe('<p>Nothing to cite [1].</p>\n');
    expect(render('No targets [1].', null)).toBe('<p>No targets [1].</p>\n');
  });

  it('leaves citations inside code as code', () => {
    expect(render('Write `list[1]` here.')).toBe('<p>Write <code>list[1]</code> here.</p>\n');
    const block = render('```python\nitems[1]\n```');
    expect(block).not.toContain('citation');
    expect(block).toContain('items[1]');
  });

  it('leaves citations inside a link as the link text, and keeps other links opening a new tab', () => {
    const html = render('[see [1] there](https://example.org) and https://example.org/a[1]');
    expect(html).not.toContain('class="citation"');
    expect(html).toContain('<a href="https://example.org" target="_blank" rel="noopener noreferrer nofollow">see [1] there</a>');
  });

  it('keeps HTML the model wrote around a citation as text', () => {
    const html = render('<img src=x onerror="window.hacked=1">[1]<script>alert(1)</script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain(`&lt;img src=x onerror=&quot;window.hacked=1&quot;&gt;${link(1)}&lt;script&gt;`);
  });

  it('escapes what the label and target say', () => {
    const html = render('[1]', { count: 1, targetId: () => '"><b>x', label: () => '"><script>' });
    expect(html).not.toContain('<b>');
    expect(html).not.toContain('<script>');
  });

  it('does not take a markdown reference link for a citation', () => {
    const html = render('Read [1].\n\n[1]: https://example.org');
    expect(html).toContain('<a href="https://example.org" target="_blank"');
    expect(html).not.toContain('class="citation"');
  });
});
