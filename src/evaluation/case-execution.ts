/**
 * One test case of a run, through the real pipeline (docs/assistant-tests.md, "Runs"): each
 * learner turn is one run of CompletionService.start, the same path the chat API and /v1 take
 * (context tools, knowledge bases, the tool loop, quotas, usage rows), with the answers so far
 * as its history; nothing is kept as a chat. Its usage rows are marked as test traffic, for the
 * assistant's owner. Then every expectation is graded: the mechanical ones here, the judged ones
 * by the judge model. A pipeline failure is the case's `error` verdict, with its stable code only.
 */
import type { CallContext } from '../auth/call-context.js';
import type { CompletionService } from '../completions/completion-service.js';
import { isAppError } from '../errors/app-error.js';
import { addUsage, listedSources, NO_USAGE, type Usage } from '../pipeline/conversation/events.js';
import type { ChatMessage } from '../pipeline/conversation/messages.js';
import type { PipelineTrace } from '../pipeline/run-assistant.js';
import type { AssistantRecord } from '../store/assistants-repository.js';
import type { ExpectationResult, TestResultView, ToolStepView } from './assistant-test-schemas.js';
import type { Expectation } from './expectation-schemas.js';
import { judgeAnswer, type JudgeModel } from './answer-judge.js';
import { gradeMechanically, overallVerdict, type CaseOutcome } from './expectation-grading.js';

/** What running a case needs from the run it belongs to. */
export interface CaseRunner {
  completions: CompletionService;
  /** The assistant's owner, with a request id naming the run: whom the model calls are counted for. */
  context: CallContext;
  /** The snapshot the run takes: the saved assistant or the draft laid over it. */
  record: AssistantRecord;
  signal: AbortSignal;
  judge: {
    model: JudgeModel | undefined;
    timeoutMilliseconds: number;
    /** The owner's rubric, as its document, for a judged expectation naming a rubric. */
    rubricDocument: (rubricId: string) => Promise<string | undefined>;
    /** Keeps the judge call's usage row (test traffic) and answers its cost in micro-dollars. */
    count: (usage: Usage, durationMilliseconds: number, outcome: string) => Promise<number>;
  };
  /** Micro-dollars for the assistant's own model calls. */
  costOf: (model: string, usage: Usage) => Promise<number>;
}

export interface TestCaseToRun {
  id: number;
  name: string;
  turns: string[];
  expectations: Expectation[];
}

interface TurnsOutcome extends CaseOutcome {
  answers: string[];
  usage: Usage;
  model: string;
  error: string | null;
}

function stepsOf(trace: PipelineTrace, turn: number): ToolStepView[] {
  const contextSteps = trace.steps.map((step) => ({
    tool: step.tool,
    function: null,
    round: null,
    turn,
    failed: step.error !== undefined,
  }));
  const calls = trace.toolCalls.map((call) => ({
    tool: call.tool ?? call.function,
    function: call.function,
    round: call.round,
    turn,
    failed: call.error !== undefined,
  }));
  return [...contextSteps, ...calls];
}

async function runTurn(runner: CaseRunner, messages: ChatMessage[], outcome: TurnsOutcome): Promise<string> {
  let trace: PipelineTrace | undefined;
  const run = await runner.completions.start({
    context: runner.context,
    record: runner.record,
    request: { messages, parameters: {}, wholeAnswer: true },
    signal: runner.signal,
    traffic: 'test',
    onTrace: (reported) => (trace = reported),
  });
  let answer = '';
  for await (const event of run.events) {
    if (event.type === 'text-delta') answer += event.text;
    else if (event.type === 'sources') outcome.sources.push(...listedSources(event.sources));
    else if (event.type === 'usage') outcome.usage = addUsage(outcome.usage, event.usage);
  }
  if (trace !== undefined) {
    outcome.model = trace.model;
    outcome.toolSteps.push(...stepsOf(trace, outcome.answers.length + 1));
  }
  return answer;
}

async function runTurns(runner: CaseRunner, turns: readonly string[]): Promise<TurnsOutcome> {
  const outcome: TurnsOutcome = {
    answer: '',
    answers: [],
    sources: [],
    toolSteps: [],
    toolRounds: 0,
    usage: NO_USAGE,
    model: '',
    error: null,
  };
  const messages: ChatMessage[] = [];
  try {
    for (const turn of turns) {
      messages.push({ role: 'user', content: turn });
      const answer = await runTurn(runner, messages, outcome);
      messages.push({ role: 'assistant', content: answer });
      outcome.answers.push(answer);
    }
  } catch (error) {
    if (runner.signal.aborted) throw error;
    outcome.error = isAppError(error) ? error.code : 'internal_error';
  }
  outcome.answer = outcome.answers.at(-1) ?? '';
  outcome.toolRounds = new Set(outcome.toolSteps.filter((step) => step.round !== null).map((step) => `${step.turn}:${step.round}`)).size;
  return outcome;
}

async function gradeJudged(
  runner: CaseRunner,
  expectation: Extract<Expectation, { type: 'judged' }>,
  context: { turns: readonly string[]; outcome: TurnsOutcome; cost: { microDollars: number } },
): Promise<ExpectationResult> {
  const criterion =
    expectation.criterion ?? (expectation.rubric_id === undefined ? undefined : await runner.judge.rubricDocument(expectation.rubric_id));
  if (criterion === undefined) return { expectation, verdict: 'not_judged', score: null, reasons: ['the rubric could not be read'] };
  const judged = await judgeAnswer(
    { criterion, turns: context.turns, answers: context.outcome.answers, sources: context.outcome.sources },
    {
      model: runner.judge.model,
      signal: runner.signal,
      timeoutMilliseconds: runner.judge.timeoutMilliseconds,
      onUsage: async (usage, durationMilliseconds, outcome) => {
        context.cost.microDollars += await runner.judge.count(usage, durationMilliseconds, outcome);
      },
    },
  );
  return { expectation, ...judged };
}

/** Runs the case and grades it; rejects only when the run is stopped (its result is then not kept). */
export async function executeCase(runner: CaseRunner, testCase: TestCaseToRun): Promise<TestResultView> {
  const started = performance.now();
  const outcome = await runTurns(runner, testCase.turns);
  const cost = { microDollars: await runner.costOf(outcome.model, outcome.usage) };
  const expectations: ExpectationResult[] = [];
  if (outcome.error === null)
    for (const expectation of testCase.expectations)
      expectations.push(
        expectation.type === 'judged'
          ? await gradeJudged(runner, expectation, { turns: testCase.turns, outcome, cost })
          : gradeMechanically(expectation, outcome),
      );
  if (runner.signal.aborted) throw new Error('stopped');
  return {
    case_id: testCase.id,
    case_name: testCase.name,
    verdict: outcome.error === null ? overallVerdict(expectations) : 'error',
    answer: outcome.answer,
    answers: outcome.answers,
    sources: outcome.sources,
    tool_steps: outcome.toolSteps,
    expectations,
    error: outcome.error,
    prompt_tokens: outcome.usage.prompt_tokens,
    completion_tokens: outcome.usage.completion_tokens,
    cost_usd: cost.microDollars / 1_000_000,
    duration_ms: Math.round(performance.now() - started),
  };
}
