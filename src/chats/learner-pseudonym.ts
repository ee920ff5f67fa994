/** How an assistant's managers see a learner: "Learner 4f2a1c", from a stable keyed digest of the user id, never the email. */

const PSEUDONYM_CHARACTERS = 6;

export function learnerPseudonym(digest: (userId: number) => string, userId: number): string {
  return `Learner ${digest(userId).slice(0, PSEUDONYM_CHARACTERS)}`;
}
