/**
 * What rendering a long prompt and writing its messages into a provider's request costs, in CPU
 * microseconds: the multi-tool assistant of `npm run bench:gateway` (its template, a 20,000-character
 * file, three knowledge-base passages and the question), rendered by `renderMessages`, then written
 * whole by `JSON.stringify` or from its pieces by `messageJson` (src/pipeline/conversation/message-json.ts),
 * and encoded as the bytes sent. Alternating turns, so both see the same machine. Prints figures;
 * it checks only that both read back alike.
 *
 *   npm run bench -- bench/prompt-request-body-cost.bench.ts   (PROMPT_BODY_ROUNDS=20000 changes the work)
 */
import { describe, expect, it } from 'vitest';
import type { AssistantSnapshot } from '../src/pipeline/assistant-metadata/assistant-snapshot.js';
import { messageJson } from '../src/pipeline/conversation/message-json.js';
import type { ChatMessage } from '../src/pipeline/conversation/messages.js';
import { renderMessages } from '../src/pipeline/templates/template-rendering.js';
import { TEST_ASSISTANT } from '../test/support/tool-context.js';
import { courseFile, knowledgePassages } from './support/gateway-targets.js';
import { QUESTION } from './support/load-measures.js';
import { printTable, wholeNumberSetting } from './support/measure.js';

const ROUNDS = wholeNumberSetting('PROMPT_BODY_ROUNDS', 20_000, 1);
const TURNS = 3;

const assistant: AssistantSnapshot = {
  ...TEST_ASSISTANT,
  systemPrompt: 'You are a patient biology tutor. Answer from the notes and passages.',
  promptTemplate: 'Course notes:\n{file}\n\nPassages:\n{context}\n\nQuestion: {user_input}',
};
const file = courseFile();
const passages = knowledgePassages().slice(0, 3).join('\n\n');

function rendered(): ChatMessage[] {
  return renderMessages({
    assistant,
    messages: [{ role: 'user', content: QUESTION }],
    // A fresh string a request, as a search's passages are; the file's text is the one string its cache holds.
    values: { file, context: `${passages} ` },
    contextSources: [],
    knownPlaceholders: new Set(['file', 'context']),
    defaultTemplate: '',
  });
}

// The messages array alone, as bytes: the rest of a request body is a few short fields.
const whole = (): Buffer => Buffer.from(JSON.stringify(rendered()));
const fromPieces = (): Buffer => Buffer.from(`[${rendered().map(messageJson).join(',')}]`);

function microsecondsOf(work: () => Buffer): number {
  const before = process.cpuUsage();
  for (let round = 0; round < ROUNDS; round += 1) work();
  const spent = process.cpuUsage(before);
  return (spent.user + spent.system) / ROUNDS;
}

describe('the cost of a long prompt in a request body', () => {
  it('prints CPU microseconds to render the prompt and write its body, whole and from pieces', { timeout: 600_000 }, () => {
    expect(JSON.parse(fromPieces().toString())).toEqual(JSON.parse(whole().toString()));
    const figures = { whole: [] as number[], pieces: [] as number[] };
    for (let turn = 0; turn < TURNS; turn += 1) {
      figures.whole.push(microsecondsOf(whole));
      figures.pieces.push(microsecondsOf(fromPieces));
    }
    printTable(
      `rendering a prompt of ${file.length.toLocaleString('en-US')} + ${passages.length.toLocaleString('en-US')} characters and writing its messages as a request's bytes, ${ROUNDS} rounds a turn`,
      [
        { label: 'written', width: 36 },
        { label: 'CPU µs, each turn', width: 20 },
      ],
      [
        ['whole, by JSON.stringify', figures.whole.map((value) => value.toFixed(1)).join(' / ')],
        ['from its pieces, by messageJson', figures.pieces.map((value) => value.toFixed(1)).join(' / ')],
      ],
    );
  });
});
