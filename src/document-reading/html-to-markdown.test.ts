// Proves the HTML converter: headings become # lines, lists, quotes, tables and preformatted text keep their shape, scripts, styles, navigation and hidden elements vanish (page furniture too when the page marks its content), entities are decoded, and broken or hostile markup (unclosed tags, stray end tags, deep nesting, '<' in text) still gives the readable text.
import { describe, expect, it } from 'vitest';
import { decodeHtmlEntities } from './html-tree.js';
import { htmlToMarkdown } from './html-to-markdown.js';

describe('htmlToMarkdown keeps the structure of the text', () => {
  it('turns headings into # lines and separates paragraphs by blank lines', () => {
    const html =
      '<h1>Cells</h1><p>All living things\n   are made of <b>cells</b>.</p><h2>Parts</h2><p>A cell has a <a href="https://x.example/m">membrane</a>.</p><h6>Tiny</h6>';
    expect(htmlToMarkdown(html)).toBe(
      '# Cells\n\nAll living things are made of cells.\n\n## Parts\n\nA cell has a membrane.\n\n###### Tiny',
    );
  });

  it('writes lists as items, nested lists indented, ordered lists numbered from their start', () => {
    const html =
      '<ul><li>Fruit<ul><li>Apple</li><li>Pear</li></ul></li><li>Bread</li></ul><ol start="3"><li>Third</li><li>Fourth</li></ol>';
    expect(htmlToMarkdown(html)).toBe('- Fruit\n  - Apple\n  - Pear\n- Bread\n\n3. Third\n4. Fourth');
  });

  it('closes unclosed paragraphs and list items where the next one starts', () => {
    expect(htmlToMarkdown('<p>One<p>Two<ul><li>a<li>b</ul>After')).toBe('One\n\nTwo\n\n- a\n- b\n\nAfter');
  });

  it('writes line breaks, block quotes and preformatted text with its spacing', () => {
    const html =
      '<p>Roses are red,<br>violets are blue.</p><blockquote><p>Quoted</p><p>twice</p></blockquote><pre>\nfunction f() {\n  return 1;\n}\n</pre>';
    expect(htmlToMarkdown(html)).toBe(
      'Roses are red,\nviolets are blue.\n\n> Quoted\n>\n> twice\n\n```\nfunction f() {\n  return 1;\n}\n```',
    );
  });

  it('writes tables as pipe rows with a separator after the first', () => {
    const html =
      '<table><caption>Scores</caption><thead><tr><th>Name<th>Score</thead><tbody><tr><td>Ana</td><td><p>3</p></td></tr><tr><td>B|C</td><td>4</td></tr></tbody></table>';
    expect(htmlToMarkdown(html)).toBe('Scores\n\n| Name | Score |\n| --- | --- |\n| Ana | 3 |\n| B\\|C | 4 |');
  });

  it('keeps inline elements inside their paragraph and text of unknown elements', () => {
    expect(htmlToMarkdown('<div>Water <span>boils</span> at <my-unit>100 °C</my-unit>.</div><div>Next</div>')).toBe(
      'Water boils at 100 °C.\n\nNext',
    );
  });

  it('escapes paragraph text that would read as a Markdown heading', () => {
    expect(htmlToMarkdown('<h2>Learn C#</h2><p># not a heading</p>')).toBe('## Learn C#\n\n\\# not a heading');
  });

  it('keeps text outside any element, and a lone "<" as text', () => {
    expect(htmlToMarkdown('3 < 4 and 5 > 2, a <3 heart')).toBe('3 < 4 and 5 > 2, a <3 heart');
  });
});

describe('htmlToMarkdown drops what is not content', () => {
  it('drops scripts, styles, templates, head, forms’ controls and comments, even with markup-like text inside', () => {
    const html = `<!DOCTYPE html><html><head><title>Tab title</title><style>p { color: red } /* </p> */</style>
      <script>var s = "<p>not text</p>"; if (a < b) { document.write('</div>'); }</script></head>
      <body><!-- a comment <p>hidden</p> --><p>Visible</p><noscript>Enable JS</noscript><template><p>Later</p></template>
      <form><label>Name</label><input value="x"><select><option>One<option>Two</select><button>Send</button><textarea>typed</textarea></form>
      <SCRIPT type="text/javascript">alert(1)</SCRIPT><p>End</p></body></html>`;
    expect(htmlToMarkdown(html)).toBe('Visible\n\nName\n\nEnd');
  });

  it('drops navigation and hidden elements', () => {
    const html =
      '<nav><a href="/">Home</a></nav><div role="navigation">Menu</div><p hidden>Secret</p><p aria-hidden="true">Icon</p><p>Body</p>';
    expect(htmlToMarkdown(html)).toBe('Body');
  });

  it('drops header, footer and asides when the page marks its content with <main>', () => {
    const html =
      '<header>Site name</header><main><header><h1>Article title</h1></header><p>Content</p><aside>Related</aside></main><aside>Ads</aside><footer>© 2024</footer>';
    expect(htmlToMarkdown(html)).toBe('# Article title\n\nContent\n\nRelated');
  });

  it('keeps header and footer of a page without <main> or <article>, since they may be its only text', () => {
    expect(htmlToMarkdown('<header><h1>Week 1</h1></header><p>Read chapter 2.</p><footer>Questions: ask in class.</footer>')).toBe(
      '# Week 1\n\nRead chapter 2.\n\nQuestions: ask in class.',
    );
  });

  it('drops images, keeping the text around them', () => {
    expect(htmlToMarkdown('<p>Before <img src="data:image/png;base64,AAAA" alt="diagram"> after</p>')).toBe('Before after');
  });
});

describe('htmlToMarkdown survives broken markup', () => {
  it('ignores stray end tags and reads attributes holding ">" or quotes', () => {
    expect(htmlToMarkdown('</div></p><p title="a > b" data-x=\'"q"\'>Text</span> here</p>')).toBe('Text here');
  });

  it('reads an unterminated tag at the end as nothing and an unterminated comment as a comment', () => {
    expect(htmlToMarkdown('<p>Kept</p><p class="x')).toBe('Kept');
    expect(htmlToMarkdown('<p>Kept</p><!-- never closed <p>gone</p>')).toBe('Kept');
  });

  it('reads an unterminated script as a script to the end', () => {
    expect(htmlToMarkdown('<p>Kept</p><script>let x = 1; <p>not text</p>')).toBe('Kept');
  });

  it('flattens nesting deeper than the bound instead of overflowing the stack', () => {
    const depth = 50_000;
    const html = `${'<div><span>'.repeat(depth)}deep text${'</span></div>'.repeat(depth)}<p>after</p>`;
    expect(htmlToMarkdown(html)).toBe('deep text\n\nafter');
  });

  it('ignores end tags that match nothing open below deep nesting, and keeps reading the text', () => {
    const html = `${'<div>'.repeat(100_000)}x${'</span>'.repeat(100_000)}${'<form>'.repeat(1_000)}<p>y</p>`;
    expect(htmlToMarkdown(html)).toBe('x\n\ny');
  });

  it('keeps the text either side of a comment together', () => {
    expect(htmlToMarkdown('<p>wa<!-- a comment -->ter</p>')).toBe('water');
  });

  it('keeps self-closed XHTML elements from swallowing what follows', () => {
    expect(htmlToMarkdown('<p>a<br/>b</p><div/><p>c</p>')).toBe('a\nb\n\nc');
  });
});

describe('entities', () => {
  it('are decoded in text and attribute-free output', () => {
    expect(htmlToMarkdown('<p>Fish &amp; chips &lt;3 &eacute;t&eacute; caf&#233; &#x1F393; a&nbsp;b &#150; &mdash; &hellip;</p>')).toBe(
      'Fish & chips <3 été café 🎓 a b – — …',
    );
  });

  it('are decoded in attributes too, so an encoded role or hidden value still drops the element', () => {
    expect(htmlToMarkdown('<div role="&#110;avigation">Menu</div><p aria-hidden="&#116;rue">Icon</p><p>Body</p>')).toBe('Body');
  });

  it('follow the HTML rules for odd references', () => {
    expect(decodeHtmlEntities('&copy 2024')).toBe('© 2024');
    expect(decodeHtmlEntities('&notaname; &eacute &amp;')).toBe('&notaname; &eacute &');
    expect(decodeHtmlEntities('AT&T R&D')).toBe('AT&T R&D');
    expect(decodeHtmlEntities('&#0; &#xD800; &#x110000; &#128;')).toBe('\ufffd \ufffd \ufffd €');
    expect(decodeHtmlEntities('&Alpha;&omega;&sigmaf;&yuml;&nbsp;&rang;')).toBe('Αωςÿ\u00a0⟩');
  });
});
