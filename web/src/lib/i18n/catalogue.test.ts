/**
 * Proves the one string catalogue is whole: Spanish has a non-empty string for every English key,
 * with the same `{{values}}` to fill and the same literal placeholders such as `{context}`, and
 * the languages still being translated (Catalan, Basque) name only keys English has.
 */
import { describe, expect, it } from 'vitest';
import { catalogues, english } from './catalogue';

type Strings = Record<string, Record<string, string> | undefined>;

function entries(catalogue: Strings): [string, string][] {
  return Object.entries(catalogue).flatMap(([area, strings]) =>
    Object.entries(strings ?? {}).map(([key, text]): [string, string] => [`${area}.${key}`, text]),
  );
}

function marks(text: string): string[] {
  return [...text.matchAll(/\{\{?\w+\}\}?/g)].map((match) => match[0]).sort();
}

const englishEntries = new Map(entries(english));

describe('the string catalogue', () => {
  it('has English strings to check', () => {
    expect(englishEntries.size).toBeGreaterThan(20);
  });

  it('has every English key in Spanish, non-empty, with the same values and placeholders', () => {
    const spanish = new Map(entries(catalogues.es));
    const problems: string[] = [];
    for (const [key, text] of englishEntries) {
      const translated = spanish.get(key);
      if (translated === undefined || translated.trim() === '') problems.push(`${key}: missing`);
      else if (marks(translated).join() !== marks(text).join())
        problems.push(`${key}: ${marks(translated).join()} ≠ ${marks(text).join()}`);
    }
    expect(problems).toEqual([]);
    expect([...spanish.keys()].filter((key) => !englishEntries.has(key))).toEqual([]);
  });

  it.each(['ca', 'eu'] as const)('names only English keys in the partial %s catalogue', (locale) => {
    const partial = entries(catalogues[locale]);
    expect(partial.filter(([key]) => !englishEntries.has(key))).toEqual([]);
  });
});
