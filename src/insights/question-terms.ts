/**
 * The terms of a learner's question that feed its assistant's topics (docs/assistant-insights.md):
 * the first few content words, lower-cased. Left out, so topics never show who asked: words
 * written with a capital inside a sentence (names are), the asker's own name and email words,
 * short words, numbers and common function words (English and Spanish). The word pattern is one
 * Unicode class repeated, which cannot backtrack, so any question is read in linear time.
 */

const WORD = /[\p{L}\p{M}]+/gu;
const SENTENCE_ENDS = '.!?¿¡:';
const TERM_CHARACTERS_MINIMUM = 4;
const TERM_CHARACTERS_MAXIMUM = 40;

const COMMON_WORDS = new Set(
  (
    'about above after again against also always another anything because been before being below between both cannot ' +
    'could does doing done down during each either else even every from further have having here hello hers himself ' +
    'into itself just know like made make many maybe mean means might more most much must myself need never only other ' +
    'ought ours over please question quite really same says should show since some something still such sure tell than ' +
    'thank thanks that their theirs them themselves then there these they thing things think this those though through ' +
    'under until upon very want was were what whats when where whether which while whom whose will with within without ' +
    'would write your yours yourself explain give help answer example could does dont doesnt isnt wont cant ' +
    'para como pero porque cuando donde esta este esto estos estas eso esos esas sobre entre tiene tengo tienes puedes ' +
    'puede hola gracias favor cual cuales quien quienes desde hasta todo todos toda todas muy mucho mucha muchos ' +
    'algo alguien nada porqué también tambien sólo solo según segun hacer hace explica explicar dime ayuda pregunta respuesta ' +
    'entonces aunque mientras otra otro otras otros mismo misma sean será sera están estan ellos ellas nosotros vosotros'
  ).split(' '),
);

/** Whether `text` ends a sentence: a stop mark or a line break, then only spaces. Plain code, not a pattern that could backtrack. */
function endsSentence(text: string): boolean {
  const trimmed = text.trimEnd();
  if (text.slice(trimmed.length).includes('\n')) return true;
  const last = trimmed.at(-1);
  return last !== undefined && SENTENCE_ENDS.includes(last);
}

/** The words of a name or an email address, lower-cased: what the asker's question must not turn into a topic. */
export function nameWords(...names: readonly string[]): Set<string> {
  const words = new Set<string>();
  for (const name of names) for (const match of name.toLowerCase().matchAll(WORD)) words.add(match[0]);
  return words;
}

/** Up to `maximum` distinct terms of the question, in the order they appear. */
export function questionTerms(question: string, options: { excluded: ReadonlySet<string>; maximum: number }): string[] {
  const terms: string[] = [];
  for (const match of question.matchAll(WORD)) {
    if (terms.length >= options.maximum) break;
    const word = match[0];
    const startsSentence = match.index === 0 || endsSentence(question.slice(Math.max(0, match.index - 3), match.index));
    if (!startsSentence && word[0] !== word[0]!.toLowerCase()) continue;
    const term = word.toLowerCase();
    if (term.length < TERM_CHARACTERS_MINIMUM || term.length > TERM_CHARACTERS_MAXIMUM) continue;
    if (COMMON_WORDS.has(term) || options.excluded.has(term) || terms.includes(term)) continue;
    terms.push(term);
  }
  return terms;
}
