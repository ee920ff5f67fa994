/** Only web addresses and paths on this site become links to a source; anything else stays text. */
import { describe, expect, it } from 'vitest';
import { sourceLink } from './source-link';

const ORIGIN = 'https://merino.example';

describe('source links', () => {
  it.each([
    ['https://example.org/doc.pdf', 'https://example.org/doc.pdf'],
    ['/api/files/3', 'https://merino.example/api/files/3'],
  ])('links %s', (url, expected) => {
    expect(sourceLink({ title: 'x', url }, ORIGIN)).toBe(expected);
  });

  it.each(['javascript:alert(1)', 'data:text/html,<b>x</b>', '3/week1.md', '//evil.example/x', 'vbscript:x', ' ', 'ftp://example.org/a'])(
    'shows %s as text',
    (url) => {
      expect(sourceLink({ title: 'x', url }, ORIGIN)).toBeUndefined();
    },
  );

  it('shows a source without a URL as text', () => {
    expect(sourceLink({ title: 'x' }, ORIGIN)).toBeUndefined();
  });
});
