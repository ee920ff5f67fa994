/**
 * What the small fast model is asked when it proposes test cases (docs/assistant-tests.md,
 * "Suggested cases"), and how its answer is read: the instructions word for word, the prompt made
 * of the assistant's system prompt and a sample of its passages, and a reader that takes every
 * whole case object out of the answer (so an answer cut by its token bound still gives the cases
 * before the cut) and keeps those the test-case input schema accepts. Nothing here is logged.
 */
import { createAjv } from '../validation/create-ajv.js';
import { validatorOnFirstUse, type ValidatorOnFirstUse } from '../validation/validator-on-first-use.js';
import { testCaseInputSchema, type TestCaseInput, type TestCaseLimits } from './assistant-test-schemas.js';

/** The instructions the proposing model is given, word for word (docs/assistant-tests.md quotes them). */
export const PROPOSAL_INSTRUCTIONS =
  'You write test cases for a teaching assistant, so that its teacher can check its answers. ' +
  "You are given the assistant's instructions and passages of its course material. " +
  'Propose varied cases a learner could bring: questions the material answers, a short follow-up conversation, and attempts to misuse the assistant. ' +
  'Reply with one JSON object and nothing else: {"cases": [{"name": <short title>, "kind": "single_turn" | "multi_turn" | "adversarial", ' +
  '"turns": [<the learner\'s messages, in order>], "expectations": [<one to three of: {"type": "contains", "phrases": [<literal text>]}, ' +
  '{"type": "not_contains", "phrases": [<literal text>]}, {"type": "max_length", "characters": <integer>}, ' +
  '{"type": "language", "language": "en" | "es" | "ca" | "eu" | "fr" | "de" | "it" | "pt"}, ' +
  '{"type": "judged", "criterion": <one sentence saying what a good answer does>}>]}]}.';

export interface ProposalSubject {
  systemPrompt: string;
  passages: readonly { file_name: string; text: string }[];
  count: number;
}

export function proposalPrompt(subject: ProposalSubject): string {
  const passages = subject.passages.map((passage, index) => `[${index + 1}] ${passage.file_name}: ${passage.text}`).join('\n');
  const instructions = subject.systemPrompt.trim() === '' ? '(none)' : subject.systemPrompt;
  return `Cases wanted: ${subject.count}\n\nThe assistant's instructions:\n${instructions}\n\nPassages of its material:\n${passages === '' ? '(none)' : passages}`;
}

/** The text of each whole top-level `{…}` inside the answer's first array (or the answer itself), strings respected. */
function objectTexts(answer: string): string[] {
  const start = answer.indexOf('[');
  const texts: string[] = [];
  let depth = 0;
  let objectStart = -1;
  let inString = false;
  let escaped = false;
  for (let index = start < 0 ? 0 : start + 1; index < answer.length; index += 1) {
    const character = answer[index];
    if (inString) {
      if (escaped) escaped = false;
      else if (character === '\\') escaped = true;
      else if (character === '"') inString = false;
    } else if (character === '"') inString = true;
    else if (character === '{') {
      if (depth === 0) objectStart = index;
      depth += 1;
    } else if (character === '}' && depth > 0) {
      depth -= 1;
      if (depth === 0) texts.push(answer.slice(objectStart, index + 1));
    } else if (character === ']' && depth === 0) break;
  }
  return texts;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** What was read from the model's answer: the valid cases, and how many it proposed that were not. */
export interface ReadProposals {
  proposals: TestCaseInput[];
  dropped: number;
  /** False when the answer held no case object at all (not JSON, or no list). */
  readable: boolean;
}

export class ProposalReader {
  private readonly validate: ValidatorOnFirstUse<TestCaseInput>;

  constructor(limits: TestCaseLimits) {
    // The expectation schema is a discriminated oneOf (by `type`), as the request bodies read it.
    this.validate = validatorOnFirstUse(() => createAjv({ discriminator: true }).compile<TestCaseInput>(testCaseInputSchema(limits)));
  }

  read(answer: string, count: number): ReadProposals {
    const candidates = objectTexts(answer).map(parsed);
    const proposals: TestCaseInput[] = [];
    let dropped = 0;
    for (const candidate of candidates) {
      // Past `count`, valid cases are left out unread; only invalid ones count as dropped.
      if (!this.validate(candidate)) dropped += 1;
      else if (proposals.length < count) proposals.push(candidate);
    }
    return { proposals, dropped, readable: candidates.length > 0 };
  }
}
