/**
 * A test case made from an answer a learner rated (docs/assistant-tests.md, "From a rated
 * answer"): the learner's turns of the branch that led to the answer, the case named from the
 * first question, and one judged expectation built from the rating (the comment of a thumb down,
 * or the rated answer itself). Nothing that names the learner goes in: only their questions and
 * the comment they wrote for the teacher.
 */
import type { TestCaseInput, TestCaseLimits } from './assistant-test-schemas.js';

/** What the case is made from: the branch up to the rated answer, oldest first, the answer last. */
export interface RatedConversation {
  messages: readonly { role: 'user' | 'assistant'; content: string }[];
  rating: 'up' | 'down';
  comment: string | null;
}

const NAME_CHARACTERS_MAXIMUM = 200;
/** How much of the rated answer a judged criterion quotes, so the criterion stays under its 2,000 characters. */
const QUOTED_ANSWER_CHARACTERS_MAXIMUM = 1_200;
const QUOTED_COMMENT_CHARACTERS_MAXIMUM = 1_500;

function cut(text: string, maximum: number): string {
  return text.length <= maximum ? text : `${text.slice(0, maximum - 1).trimEnd()}…`;
}

/** The first question on one line, trimmed and cut to a case name's length. */
function caseName(firstQuestion: string): string {
  return cut(firstQuestion.replace(/\s+/g, ' ').trim(), NAME_CHARACTERS_MAXIMUM);
}

/** The criterion the judge grades a new answer against, in the teacher's terms. */
export function criterionOf(conversation: RatedConversation, ratedAnswer: string): string {
  const answer = cut(ratedAnswer.trim(), QUOTED_ANSWER_CHARACTERS_MAXIMUM);
  if (conversation.rating === 'down' && conversation.comment !== null && conversation.comment.trim() !== '')
    return (
      'A learner rated an earlier answer to this conversation as not helpful and said: "' +
      cut(conversation.comment.trim(), QUOTED_COMMENT_CHARACTERS_MAXIMUM) +
      '". The answer fixes what the learner pointed out.'
    );
  if (conversation.rating === 'down')
    return `A learner rated this earlier answer as not helpful: "${answer}". The answer is clearly more helpful than it.`;
  return `A learner rated this earlier answer as helpful: "${answer}". The answer is at least as helpful and correct as it.`;
}

/** The case, or undefined when the branch holds no learner text to replay. */
export function caseFromRatedAnswer(conversation: RatedConversation, limits: TestCaseLimits): TestCaseInput | undefined {
  const questions = conversation.messages
    .slice(0, -1)
    .filter((message) => message.role === 'user' && message.content.trim() !== '')
    .map((message) => message.content);
  if (questions.length === 0) return undefined;
  // The last turns are kept when there are more than a case may hold: the rated answer answers them.
  const turns = questions.slice(-limits.turnsMaximum).map((turn) => turn.slice(0, limits.turnCharactersMaximum));
  const ratedAnswer = conversation.messages.at(-1)?.content ?? '';
  return {
    name: caseName(questions[0]!),
    kind: turns.length > 1 ? 'multi_turn' : 'single_turn',
    turns,
    expectations: [{ type: 'judged', criterion: criterionOf(conversation, ratedAnswer) }],
  };
}
