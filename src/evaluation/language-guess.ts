/**
 * Which language a text is in, guessed from its most common words, for the `language`
 * expectation of a test case (docs/assistant-tests.md). No language-detection library is among
 * the project's dependencies, so this is a small documented heuristic rather than a model: each
 * language has a list of frequent function words ("the", "and", "de", "que", "eta"...); the text's
 * words are counted against each list and the language with the most hits wins. It needs a few
 * sentences to be reliable and knows only the languages listed; a text with no hits is `undefined`.
 * Words are split on anything that is not a letter, so no pattern with backtracking touches the text.
 */

const FUNCTION_WORDS: Record<string, readonly string[]> = {
  en: [
    'the',
    'and',
    'is',
    'are',
    'of',
    'to',
    'in',
    'that',
    'it',
    'you',
    'this',
    'with',
    'for',
    'not',
    'be',
    'was',
    'what',
    'which',
    'they',
    'have',
  ],
  es: ['el', 'la', 'los', 'las', 'y', 'es', 'que', 'de', 'en', 'un', 'una', 'por', 'con', 'para', 'no', 'se', 'su', 'del', 'como', 'pero'],
  ca: [
    'el',
    'la',
    'els',
    'les',
    'i',
    'és',
    'que',
    'de',
    'en',
    'un',
    'una',
    'per',
    'amb',
    'no',
    'es',
    'del',
    'com',
    'però',
    'són',
    'aquest',
  ],
  eu: [
    'eta',
    'da',
    'ez',
    'bat',
    'dira',
    'du',
    'dute',
    'ere',
    'baina',
    'hau',
    'edo',
    'zer',
    'nola',
    'bere',
    'baino',
    'izan',
    'dago',
    'beste',
    'oso',
    'behar',
  ],
  fr: [
    'le',
    'la',
    'les',
    'et',
    'est',
    'que',
    'de',
    'des',
    'un',
    'une',
    'pour',
    'avec',
    'pas',
    'ne',
    'du',
    'dans',
    'qui',
    'sont',
    'ce',
    'il',
  ],
  de: [
    'der',
    'die',
    'das',
    'und',
    'ist',
    'nicht',
    'ein',
    'eine',
    'zu',
    'mit',
    'sich',
    'den',
    'von',
    'auf',
    'für',
    'sind',
    'auch',
    'es',
    'dem',
    'wie',
  ],
  it: [
    'il',
    'la',
    'e',
    'è',
    'che',
    'di',
    'un',
    'una',
    'per',
    'con',
    'non',
    'sono',
    'del',
    'della',
    'gli',
    'le',
    'nel',
    'come',
    'ma',
    'questo',
  ],
  pt: ['o', 'a', 'os', 'as', 'e', 'é', 'que', 'de', 'em', 'um', 'uma', 'para', 'com', 'não', 'do', 'da', 'por', 'como', 'mas', 'são'],
};

const WORD_SETS = new Map(Object.entries(FUNCTION_WORDS).map(([language, words]) => [language, new Set(words)]));

/** The text's words, lower-cased: runs of letters (any script) and apostrophes are not split on. */
function wordsOf(text: string): string[] {
  const words: string[] = [];
  let current = '';
  for (const character of text.toLowerCase()) {
    if (/\p{L}/u.test(character)) current += character;
    else if (current !== '') {
      words.push(current);
      current = '';
    }
  }
  if (current !== '') words.push(current);
  return words;
}

/** The best-scoring language code, or undefined when no listed function word occurs. */
export function guessLanguage(text: string): string | undefined {
  const words = wordsOf(text);
  let best: string | undefined;
  let bestHits = 0;
  for (const [language, set] of WORD_SETS) {
    const hits = words.reduce((sum, word) => sum + (set.has(word) ? 1 : 0), 0);
    if (hits > bestHits) {
      best = language;
      bestHits = hits;
    }
  }
  return best;
}
