/** The title a chat gets from its first question: its opening words, cut on a word boundary. */

const TITLE_WORDS_MAXIMUM = 8;
const TITLE_CHARACTERS_MAXIMUM = 60;

export function automaticTitle(question: string): string {
  const words = question
    .trim()
    .split(/\s+/u)
    .filter((word) => word !== '');
  let title = '';
  for (const word of words.slice(0, TITLE_WORDS_MAXIMUM)) {
    const longer = title === '' ? word : `${title} ${word}`;
    if (longer.length > TITLE_CHARACTERS_MAXIMUM) break;
    title = longer;
  }
  // A first word longer than the limit is cut inside it rather than leaving the chat untitled.
  if (title === '' && words.length > 0)
    title = Array.from(new Intl.Segmenter().segment(words[0] ?? ''), (part) => part.segment)
      .slice(0, TITLE_CHARACTERS_MAXIMUM)
      .join('');
  return title.length < question.trim().length ? `${title}…` : title;
}
