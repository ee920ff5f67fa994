/**
 * The judge of a test case's judged expectation (docs/assistant-tests.md, "The judge"): the
 * organization's small fast model reads the teacher's criterion (a sentence, or a rubric's
 * document), the conversation (the learner's turns and the assistant's answers) and the passages
 * the answer was given, and answers a verdict (pass, fail, mixed), a score from 0 to 1 and its
 * reasons as JSON. It never sees the assistant's system prompt, template, settings or any key.
 * A judge that is not configured, fails, times out (TEST_JUDGE_TIMEOUT_MS) or answers something
 * unreadable gives `not_judged`, never a pass. Its model call is one usage row, marked as test
 * traffic, for the assistant's owner.
 */
import { startDeadline } from '../pipeline/bounds/deadline.js';
import type { Usage } from '../pipeline/conversation/events.js';
import type { ConnectorDefinition, ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';
import type { Verdict } from './assistant-test-schemas.js';

/** What grading one judged expectation gives. */
export interface JudgeVerdict {
  verdict: Verdict;
  score: number | null;
  reasons: string[];
}

/** Each passage the judge sees is cut to this many characters, and it sees at most this many. */
const SOURCE_CHARACTERS_MAXIMUM = 1_500;
const SOURCES_MAXIMUM = 8;
/** The judge's answer is short JSON; a longer one is cut by the provider. */
const JUDGE_TOKENS_MAXIMUM = 400;
const REASONS_MAXIMUM = 5;
const REASON_CHARACTERS_MAXIMUM = 500;

/** The instructions the judge model is given, word for word (docs/assistant-tests.md quotes them). */
export const JUDGE_INSTRUCTIONS =
  "You grade one answer of a teaching assistant against the teacher's criterion. " +
  "You are given the criterion, the conversation (the learner's messages and the assistant's answers) and the passages the assistant was given. " +
  'Judge only whether the last answer meets the criterion. ' +
  'Reply with one JSON object and nothing else: {"verdict": "pass" | "fail" | "mixed", "score": <number from 0 to 1>, "reasons": [<short sentences>]}.';

export interface JudgeModel {
  connector: ConnectorDefinition;
  /** The names the usage row keeps. */
  connectorName: string;
  model: string;
  provider: ProviderSettings;
}

export interface JudgeQuestion {
  /** The teacher's sentence, or the rubric's document. */
  criterion: string;
  turns: readonly string[];
  answers: readonly string[];
  sources: readonly { title: string; text?: string | undefined }[];
}

export interface JudgeCall {
  /** Undefined when the organization names no small fast model (or an unknown connector). */
  model: JudgeModel | undefined;
  signal: AbortSignal;
  timeoutMilliseconds: number;
  /** Told what the call used, for its usage row and cost. */
  onUsage: (usage: Usage, durationMilliseconds: number, outcome: string) => Promise<void>;
}

function judgePrompt(question: JudgeQuestion): string {
  const conversation = question.turns.map((turn, index) => `Learner: ${turn}\n\nAssistant: ${question.answers[index] ?? ''}`).join('\n\n');
  const passages = question.sources
    .slice(0, SOURCES_MAXIMUM)
    .map((source, index) => `[${index + 1}] ${source.title}: ${(source.text ?? '').slice(0, SOURCE_CHARACTERS_MAXIMUM)}`)
    .join('\n');
  return `Criterion:\n${question.criterion}\n\nConversation:\n${conversation}\n\nPassages:\n${passages === '' ? '(none)' : passages}`;
}

function notJudged(reason: string): JudgeVerdict {
  return { verdict: 'not_judged', score: null, reasons: [reason] };
}

/** The judge's JSON, from the first `{` to the last `}` of its answer; undefined when it is not a well-formed verdict. */
export function readVerdict(answer: string): JudgeVerdict | undefined {
  const start = answer.indexOf('{');
  const end = answer.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.slice(start, end + 1));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { verdict, score, reasons } = parsed as Record<string, unknown>;
  if (verdict !== 'pass' && verdict !== 'fail' && verdict !== 'mixed') return undefined;
  if (typeof score !== 'number' || !Number.isFinite(score) || score < 0 || score > 1) return undefined;
  const reasonList = Array.isArray(reasons) ? reasons.filter((reason): reason is string => typeof reason === 'string') : [];
  return {
    verdict,
    score,
    reasons: reasonList.slice(0, REASONS_MAXIMUM).map((reason) => reason.slice(0, REASON_CHARACTERS_MAXIMUM)),
  };
}

async function askJudge(
  model: JudgeModel,
  question: JudgeQuestion,
  call: JudgeCall,
): Promise<{ answer: string; usage: Usage | undefined }> {
  let answer = '';
  let usage: Usage | undefined;
  // A real timer (startDeadline), since AbortSignal.timeout's can be collected before it fires.
  const deadline = startDeadline(call.timeoutMilliseconds, call.signal);
  const events = model.connector.complete({
    model: model.model,
    messages: [
      { role: 'system', content: JUDGE_INSTRUCTIONS },
      { role: 'user', content: judgePrompt(question) },
    ],
    parameters: { temperature: 0, max_tokens: JUDGE_TOKENS_MAXIMUM },
    provider: model.provider,
    signal: deadline.signal,
    timeoutMilliseconds: call.timeoutMilliseconds,
    wholeAnswer: true,
  });
  try {
    for await (const event of events) {
      if (event.type === 'text-delta') answer += event.text;
      else if (event.type === 'usage') usage = event.usage;
    }
  } finally {
    deadline.clear();
  }
  return { answer, usage };
}

export async function judgeAnswer(question: JudgeQuestion, call: JudgeCall): Promise<JudgeVerdict> {
  const { model } = call;
  if (model === undefined) return notJudged('no judge model: the organization names no small fast model');
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  let reply: { answer: string; usage: Usage | undefined };
  try {
    reply = await askJudge(model, question, call);
  } catch {
    await call.onUsage({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }, elapsed(), 'failed:judge');
    return notJudged(call.signal.aborted ? 'the run was stopped' : 'the judge did not answer in time or failed');
  }
  const verdict = readVerdict(reply.answer);
  await call.onUsage(
    reply.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
    elapsed(),
    verdict ? 'completed' : 'failed:judge_unreadable',
  );
  return verdict ?? notJudged('the judge answered something that is not a verdict');
}
