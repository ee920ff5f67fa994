/**
 * The markdown renderer's first line of defence, without a browser: raw HTML in a model's answer
 * comes out as text, links with a dangerous scheme never become hrefs, no image is fetched but a generated one of this server,
 * and code blocks and tables keep the markup the page styles.
 */
import { describe, expect, it } from 'vitest';
import { createMarkdown, isSafeLink, mayContainMath } from './markdown';

const markdown = createMarkdown({ copyCode: 'Copy', code: 'code' });

function render(text: string): string {
  return markdown.render(text);
}

describe('the markdown renderer', () => {
  it('shows raw HTML as text', () => {
    const html = render('Hi <img src=x onerror="window.hacked=1"> <script>window.hacked=2</script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script');
    expect(html).toContain('&lt;img src=x onerror=&quot;window.hacked=1&quot;&gt;');
    expect(html).toContain('&lt;script&gt;');
  });

  it.each([
    'javascript:alert(1)',
    'JaVaScRiPt:alert(1)',
    'java\tscript:alert(1)',
    'javascript&#58;alert(1)',
    '&#106;avascript:alert(1)',
    'vbscript:msgbox(1)',
    'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
    'file:///etc/passwd',
    '//evil.example/path',
  ])('never links to %s', (target) => {
    const html = render(`[click](${target}) and <${target}>`);
    expect(html).not.toMatch(/href="(?!https?:)/i);
    expect(html.toLowerCase()).not.toContain('href="javascript');
  });

  it.each(['photosynthesis.md', 'notes.py', 'data.zip', 'www.example.org', 'teacher@example.org'])(
    'leaves %s as text, since it was written without a scheme',
    (name) => {
      const html = render(`Open ${name} now, or https://example.org/page.`);
      expect(html).toContain(`Open ${name} now`);
      expect(html.match(/<a /g)).toHaveLength(1);
    },
  );

  it('links to http(s), mailto and site paths, opening them apart from the chat', () => {
    const html = render('[a](https://example.org/a) [b](/files/1) [c](mailto:someone@example.org)');
    expect(html).toContain('<a href="https://example.org/a" target="_blank" rel="noopener noreferrer nofollow">a</a>');
    expect(html).toContain('href="/files/1"');
    expect(html).toContain('href="mailto:someone@example.org"');
  });

  it('fetches no image but a generated image this server serves, shown with its alt text', () => {
    for (const other of [
      '![tracker](https://example.org/pixel.png)',
      '![x](//example.org/a.png)',
      '![x](/api/files/1/content?x=1)',
      '![x](/api/files/1/text)',
      '![x](/api/files/../users)',
      '![x](javascript:alert(1))',
    ])
      expect(render(other)).not.toContain('<img');
    expect(render('![tracker](https://example.org/pixel.png)')).toContain('tracker');
    expect(render('![A sheep](/api/files/12/content)')).toContain(
      '<img src="/api/files/12/content" alt="A sheep" class="generated-image" loading="lazy">',
    );
    expect(render('![<b>"x"](/api/files/12/content)')).toContain('alt="&lt;b&gt;&quot;x&quot;"');
  });

  it('puts code in a block with a Copy button and escapes it', () => {
    const html = render('```python\nprint("<b>")\n```');
    expect(html).toContain('<button type="button" class="copy-code" data-copy-code>Copy</button>');
    expect(html).toContain('<code class="language-python">print(&quot;&lt;b&gt;&quot;)\n</code>');
  });

  it('keeps a hostile fence language out of the class attribute', () => {
    const html = render('```x"onmouseover="alert(1)\ncode\n```');
    expect(html).not.toContain('onmouseover="');
    expect(html).toContain('<code>code\n</code>');
  });

  it('renders tables inside a box that scrolls and the keyboard reaches', () => {
    const html = render('| a | b |\n| - | - |\n| 1 | 2 |');
    expect(html).toContain('<div class="table-scroll" tabindex="0"><table>');
    expect(html).toContain('<td>1</td>');
  });

  it('tells safe links from others', () => {
    expect(isSafeLink('https://example.org')).toBe(true);
    expect(isSafeLink('notes/week1.md')).toBe(true);
    expect(isSafeLink(' javascript:alert(1)')).toBe(false);
    expect(isSafeLink('\u0001javascript:alert(1)')).toBe(false);
  });

  it('loads math only for text that may hold some', () => {
    expect(mayContainMath('The area is $\\pi r^2$.')).toBe(true);
    expect(mayContainMath('$$E = mc^2$$')).toBe(true);
    expect(mayContainMath('\\(x\\)')).toBe(true);
    expect(mayContainMath('It costs $5, plain text.')).toBe(false);
  });
});
