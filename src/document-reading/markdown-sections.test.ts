// Proves Markdown is split at its headings with the path of headings kept: ATX and setext headings count, '#' lines in fenced code, front matter and '#hashtags' do not, text before the first heading is its own section, and a heading directly followed by a deeper one lives on only in its children's path.
import { describe, expect, it } from 'vitest';
import { splitMarkdownSections } from './markdown-sections.js';

describe('splitMarkdownSections', () => {
  it('splits nested headings into sections carrying the heading path', () => {
    const markdown = [
      'Intro before any heading.',
      '',
      '# Biology',
      'Life science.',
      '## Cells',
      'Units of life.',
      '### Membrane',
      'A barrier.',
      '## Plants',
      'Green things.',
      '# Chemistry',
      'Matter.',
    ].join('\n');
    expect(splitMarkdownSections(markdown)).toEqual([
      { text: 'Intro before any heading.' },
      { text: '# Biology\n\nLife science.', heading: 'Biology' },
      { text: '## Cells\n\nUnits of life.', heading: 'Biology > Cells' },
      { text: '### Membrane\n\nA barrier.', heading: 'Biology > Cells > Membrane' },
      { text: '## Plants\n\nGreen things.', heading: 'Biology > Plants' },
      { text: '# Chemistry\n\nMatter.', heading: 'Chemistry' },
    ]);
  });

  it('leaves out a heading with no text of its own when a deeper heading follows, but keeps a bare last heading', () => {
    expect(splitMarkdownSections('# Course\n\n## Week 1\nRead.\n\n## Week 2')).toEqual([
      { text: '## Week 1\n\nRead.', heading: 'Course > Week 1' },
      { text: '## Week 2', heading: 'Course > Week 2' },
    ]);
  });

  it('reads closing hashes, indentation and skipped levels', () => {
    expect(splitMarkdownSections('  ## Title ##\ntext\n#### Deep\nmore')).toEqual([
      { text: '## Title\n\ntext', heading: 'Title' },
      { text: '#### Deep\n\nmore', heading: 'Title > Deep' },
    ]);
  });

  it('reads setext headings', () => {
    expect(splitMarkdownSections('Main title\n==========\n\nBody.\n\nSub part\n--------\nMore.')).toEqual([
      { text: '# Main title\n\nBody.', heading: 'Main title' },
      { text: '## Sub part\n\nMore.', heading: 'Main title > Sub part' },
    ]);
  });

  it('does not take # lines in fenced code, #hashtags or list items over a rule for headings', () => {
    const body = '```bash\n# install\nnpm ci\n```\n~~~\n## not either\n~~~\n#hashtag stays\n\n- item\n---\ntext';
    expect(splitMarkdownSections(`# Script\n${body}`)).toEqual([{ text: `# Script\n\n${body}`, heading: 'Script' }]);
  });

  it('keeps front matter as text, not as a heading', () => {
    const markdown = '---\ntitle: Notes\n---\n# Start\nBody';
    expect(splitMarkdownSections(markdown)).toEqual([{ text: '---\ntitle: Notes\n---' }, { text: '# Start\n\nBody', heading: 'Start' }]);
  });

  it('gives one section without heading for text without headings, and none for blank text', () => {
    expect(splitMarkdownSections('Just text.\n\nMore text.')).toEqual([{ text: 'Just text.\n\nMore text.' }]);
    expect(splitMarkdownSections('\n  \n')).toEqual([]);
  });

  it('keeps unicode and emoji in headings and paths', () => {
    expect(splitMarkdownSections('# Fotosíntesis 🌱\n## Clorofila\nVerde.')).toEqual([
      { text: '## Clorofila\n\nVerde.', heading: 'Fotosíntesis 🌱 > Clorofila' },
    ]);
  });
});
