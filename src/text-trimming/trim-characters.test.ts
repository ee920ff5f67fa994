// Proves the linear trimming helpers give exactly what the regular expressions they replace gave
// (random texts over the characters that matter, checked against the old expressions), and give
// it for runs of hundreds of thousands of characters that those expressions took seconds over.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trimCharacters, trimCharactersAtLineEnds, trimCharactersEnd, trimCharactersStart } from './trim-characters.js';

const SEED = 11;
const text = (alphabet: string[]): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }).map((characters) => characters.join(''));
const DOTS_AND_SPACES = text([' ', '.', 'x', '\t', 'é']);
const LINES = text([' ', '\t', 'a', '\n', '\r', '\u2028', '\u2029', '\u00a0']);

describe('trimming helpers behave like the expressions they replace', () => {
  it('trimCharacters(text, " .") is text.replace(/^[ .]+|[ .]+$/g, "")', () => {
    fc.assert(
      fc.property(DOTS_AND_SPACES, (value) => trimCharacters(value, ' .') === value.replace(/^[ .]+|[ .]+$/g, '')),
      { seed: SEED, numRuns: 2_000 },
    );
  });

  it('trimCharactersEnd(text, "/") is text.replace(/\\/+$/, "")', () => {
    fc.assert(
      fc.property(text(['/', 'a', ':']), (value) => trimCharactersEnd(value, '/') === value.replace(/\/+$/, '')),
      { seed: SEED, numRuns: 1_000 },
    );
  });

  it('trimCharactersStart(text, "_") is text.replace(/^_+/, "")', () => {
    fc.assert(
      fc.property(text(['_', 'a']), (value) => trimCharactersStart(value, '_') === value.replace(/^_+/, '')),
      { seed: SEED, numRuns: 1_000 },
    );
  });

  it('trimCharactersAtLineEnds(text, " \\t") is text.replace(/[ \\t]+$/gm, "") for every line terminator', () => {
    fc.assert(
      fc.property(LINES, (value) => trimCharactersAtLineEnds(value, ' \t') === value.replace(/[ \t]+$/gm, '')),
      { seed: SEED, numRuns: 3_000 },
    );
  });

  it('handles the edge cases: empty text, nothing to trim, only trimmable characters', () => {
    expect(trimCharacters('', ' .')).toBe('');
    expect(trimCharacters('a.b', ' .')).toBe('a.b');
    expect(trimCharacters(' . . ', ' .')).toBe('');
    expect(trimCharactersAtLineEnds('', ' ')).toBe('');
    expect(trimCharactersAtLineEnds('  \n\t\n', ' \t')).toBe('\n\n');
  });
});

describe('trimming helpers on pathological runs', () => {
  const RUN = 300_000;

  it('keeps a long inner run of dots and spaces and drops the outer ones', () => {
    const inner = ` .${'.'.repeat(RUN)} `;
    expect(trimCharacters(`..x${inner}x${' .'.repeat(RUN)}`, ' .')).toBe(`x${inner}x`);
  });

  it('drops trailing spaces on each line and keeps inner runs', () => {
    const spaces = ' '.repeat(RUN);
    expect(trimCharactersAtLineEnds(`x${spaces}x${spaces}\n${'\t'.repeat(RUN)}\ny`, ' \t')).toBe(`x${spaces}x\n\ny`);
  });

  it('trims a path of slashes and keeps a slash run in the middle', () => {
    expect(trimCharactersEnd(`https://a${'/'.repeat(RUN)}b${'/'.repeat(RUN)}`, '/')).toBe(`https://a${'/'.repeat(RUN)}b`);
  });
});
