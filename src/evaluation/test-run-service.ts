/**
 * Test runs of an assistant (docs/assistant-tests.md, "Runs"): a cost estimate before, then a
 * background job that runs the chosen cases through the real pipeline against a snapshot (the
 * saved assistant or a draft), TEST_RUN_CONCURRENCY at a time, each result stored as it finishes;
 * progress read back from the store (so any process can follow it), a stop that ends the run and
 * keeps what finished, and a comparison of two runs. Only whoever manages the assistant may. A
 * running run is held under a lease this process renews; one whose process died is marked
 * interrupted by whoever looks first (test-run-sweep.ts). The running-runs limit is counted under
 * a lock on the assistant's row, so racing starts on any process never pass it.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { identityOf } from '../auth/authenticator.js';
import type { Identity } from '../auth/identity.js';
import { assistantAuditEntry } from '../assistants/assistant-records.js';
import type { CompletionService } from '../completions/completion-service.js';
import type { RunRecordWriter } from '../completions/run-record-writer.js';
import { AppError } from '../errors/app-error.js';
import type { Usage } from '../pipeline/conversation/events.js';
import type { ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';
import type { RubricReader } from '../pipeline/plugin-contract/ports.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import type { AssistantRecord } from '../store/assistants-repository.js';
import {
  countRunningTestRuns,
  findTestCases,
  finishTestRun,
  insertTestResult,
  insertTestRun,
  isTestRunStopRequested,
  listRunningTestRuns,
  listTestResults,
  listTestRuns,
  lockAssistantTests,
  requestTestRunStop,
  type TestRunRow,
} from '../store/assistant-tests-repository.js';
import type { Dialect } from '../store/dialect.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { listModelPrices } from '../store/model-prices-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import { findUserById } from '../store/users-repository.js';
import { DEFAULT_MODEL_PRICES, priceOf } from '../usage/default-model-prices.js';
import { costInMicroDollars } from '../usage/usage-roll-up.js';
import type { PageBounds } from '../validation/page-query-schema.js';
import type { JudgeModel } from './answer-judge.js';
import type {
  TestResultView,
  TestRunComparisonView,
  TestRunEstimateView,
  TestRunInput,
  TestRunSummaryView,
  TestRunView,
} from './assistant-test-schemas.js';
import type { Expectation } from './expectation-schemas.js';
import { executeCase, type CaseRunner, type TestCaseToRun } from './case-execution.js';
import { loadTestableAssistant } from './test-case-service.js';
import { draftSnapshot, estimateTokens, recordWithSnapshot, snapshotOfRecord, type RunSnapshot } from './test-run-snapshot.js';
import { TestRunLeases } from './test-run-leases.js';
import { interruptAbandoned, sweepTestRuns } from './test-run-sweep.js';
import { dollars, resultsOf, runSummaries } from './test-run-views.js';

export interface TestRunLimits {
  concurrency: number;
  runsPerAssistantMaximum: number;
  judgeTimeoutMilliseconds: number;
  eventsPollMilliseconds: number;
  /** How long a run's lease lasts unless renewed (TEST_RUN_LEASE_MS). */
  leaseMilliseconds: number;
}

export interface TestRunDependencies {
  db: Kysely<Database>;
  dialect: Dialect;
  /** This process's name in leases (runner-identity.ts). */
  leaseOwner: string;
  registries: Registries;
  completions: CompletionService;
  runRecords: RunRecordWriter;
  providersFor: (organizationId: number) => Promise<(connectorName: string) => ProviderSettings>;
  smallFastModelFor: (organizationId: number) => Promise<{ connector: string; model: string } | undefined>;
  rubricReaderFor: (owner: Identity) => RubricReader;
  /** Aborts when the server stops: running runs end as `interrupted`, their finished results kept. */
  serverStopping: AbortSignal;
  limits: TestRunLimits;
}

/** A run prepared before it starts: the snapshot and the cases it takes. */
interface PreparedRun {
  record: AssistantRecord;
  snapshot: RunSnapshot;
  source: 'saved' | 'draft';
  cases: TestCaseToRun[];
}

export class TestRunService {
  /**
   * This process's running runs: the controller, so that a stop asked here ends their cases at
   * once, and the job, so that the stop waits for that run alone and tests and a graceful stop
   * can wait for them all.
   */
  private readonly running = new Map<number, { controller: AbortController; job: Promise<void> }>();
  /** The leases this process holds on its running runs, and the sweep of runs whose process died. */
  readonly leases: TestRunLeases;

  constructor(private readonly dependencies: TestRunDependencies) {
    this.leases = new TestRunLeases(dependencies);
  }

  async estimate(context: CallContext, assistantId: number, input: TestRunInput): Promise<TestRunEstimateView> {
    const prepared = await this.prepare(context, assistantId, input);
    return this.estimateOf(prepared);
  }

  async start(context: CallContext, assistantId: number, input: TestRunInput): Promise<TestRunView> {
    const prepared = await this.prepare(context, assistantId, input);
    const estimate = await this.estimateOf(prepared);
    const { db, limits, leaseOwner } = this.dependencies;
    const runId = await db.transaction().execute(async (transaction) => {
      await lockAssistantTests(transaction, assistantId);
      // Runs of processes that died no longer count against the limit.
      await interruptAbandoned(transaction, await listRunningTestRuns(transaction, assistantId), nowTimestamp());
      if ((await countRunningTestRuns(transaction, assistantId)) >= limits.runsPerAssistantMaximum)
        throw new AppError('test_runs_limit', `An assistant may have at most ${limits.runsPerAssistantMaximum} test runs running at once.`);
      const id = await insertTestRun(transaction, {
        assistant_id: assistantId,
        started_by: context.identity.userId,
        snapshot_source: prepared.source,
        snapshot: JSON.stringify(prepared.snapshot),
        case_ids: JSON.stringify(prepared.cases.map((testCase) => testCase.id)),
        status: 'running',
        estimated_cost_micro_usd: Math.round(estimate.estimated_cost_usd * 1_000_000),
        created_at: nowTimestamp(),
        lease_owner: leaseOwner,
        lease_expires_at: this.leases.expiry(),
      });
      await appendAuditEntry(
        transaction,
        assistantAuditEntry(context, prepared.record, 'assistant.test_run_start', { run_id: id, source: prepared.source }),
      );
      return id;
    });
    const controller = new AbortController();
    const job = this.execute(runId, prepared, controller).finally(() => this.running.delete(runId));
    this.running.set(runId, { controller, job });
    return this.get(context, assistantId, runId);
  }

  async list(context: CallContext, assistantId: number, page: PageBounds): Promise<{ items: TestRunSummaryView[]; total: number }> {
    await loadTestableAssistant(this.dependencies.db, context, assistantId);
    await sweepTestRuns(this.dependencies.db, assistantId);
    const listed = await listTestRuns(this.dependencies.db, assistantId, page);
    return { items: await runSummaries(this.dependencies.db, listed.items), total: listed.total };
  }

  async get(context: CallContext, assistantId: number, runId: number): Promise<TestRunView> {
    const row = await this.requireRun(context, assistantId, runId);
    const [summary] = await runSummaries(this.dependencies.db, [row]);
    return { ...summary!, results: await resultsOf(this.dependencies.db, runId) };
  }

  /** Ends the run: cases still running are abandoned, finished ones kept. A finished run is answered as it is. */
  async stop(context: CallContext, assistantId: number, runId: number): Promise<TestRunView> {
    const row = await this.requireRun(context, assistantId, runId);
    if (row.status === 'running') {
      await requestTestRunStop(this.dependencies.db, runId);
      const running = this.running.get(runId);
      if (running !== undefined) {
        running.controller.abort();
        await running.job;
      }
    }
    return this.get(context, assistantId, runId);
  }

  /** Exactly the cases run in both whose verdict differs, with both answers. */
  async compare(context: CallContext, assistantId: number, runIds: { base: number; head: number }): Promise<TestRunComparisonView> {
    await this.requireRun(context, assistantId, runIds.base);
    await this.requireRun(context, assistantId, runIds.head);
    const results = await listTestResults(this.dependencies.db, [runIds.base, runIds.head]);
    const base = new Map(results.filter((row) => row.run_id === runIds.base).map((row) => [row.case_id, row]));
    const changed = results
      .filter((row) => row.run_id === runIds.head)
      .flatMap((head) => {
        const before = base.get(head.case_id);
        if (before === undefined || before.verdict === head.verdict) return [];
        return [
          {
            case_id: head.case_id,
            case_name: head.case_name,
            base_verdict: before.verdict as TestResultView['verdict'],
            head_verdict: head.verdict as TestResultView['verdict'],
            base_answer: before.answer,
            head_answer: head.answer,
          },
        ];
      });
    return { base: runIds.base, head: runIds.head, changed };
  }

  /** The run's summary now, for its event stream; checked against the caller once, when the stream opens. */
  async summary(context: CallContext, assistantId: number, runId: number): Promise<() => Promise<TestRunSummaryView>> {
    await this.requireRun(context, assistantId, runId);
    return async () => {
      const row = await this.leases.findSettled(assistantId, runId);
      const [summary] = await runSummaries(this.dependencies.db, row === undefined ? [] : [row]);
      if (summary === undefined) throw new AppError('not_found', 'Test run not found.');
      return summary;
    };
  }

  get pollMilliseconds(): number {
    return this.dependencies.limits.eventsPollMilliseconds;
  }

  /** Waits for every run this process is running (tests, and a graceful stop). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()].map((running) => running.job));
  }

  private async requireRun(context: CallContext, assistantId: number, runId: number): Promise<TestRunRow> {
    await loadTestableAssistant(this.dependencies.db, context, assistantId);
    const row = await this.leases.findSettled(assistantId, runId);
    if (!row) throw new AppError('not_found', 'Test run not found.');
    return row;
  }

  private async prepare(context: CallContext, assistantId: number, input: TestRunInput): Promise<PreparedRun> {
    const { db, registries } = this.dependencies;
    const record = await loadTestableAssistant(db, context, assistantId);
    const snapshot = input.draft === undefined ? snapshotOfRecord(record) : draftSnapshot(record, input.draft, registries);
    const chosen = input.cases === 'all' ? undefined : input.cases;
    const rows = await findTestCases(db, assistantId, chosen);
    const missing = (chosen ?? []).filter((id) => !rows.some((row) => row.id === id));
    if (missing.length > 0) throw new AppError('not_found', `Test case ${missing[0]} not found.`, { param: 'cases', details: { missing } });
    if (rows.length === 0) throw new AppError('invalid_body', 'The assistant has no test cases to run.', { param: 'cases' });
    const cases = rows.map((row) => ({
      id: row.id,
      name: row.name,
      turns: JSON.parse(row.turns) as string[],
      expectations: JSON.parse(row.expectations) as Expectation[],
    }));
    return { record, snapshot, source: input.draft === undefined ? 'saved' : 'draft', cases };
  }

  private async estimateOf(prepared: PreparedRun): Promise<TestRunEstimateView> {
    const tokens = estimateTokens(prepared.snapshot, prepared.cases);
    const organizationId = prepared.record.organization_id;
    const model = (JSON.parse(prepared.snapshot.metadata) as { llm?: string }).llm ?? '';
    const judge = await this.dependencies.smallFastModelFor(organizationId);
    const cost =
      (await this.costOf(organizationId, model, {
        prompt_tokens: tokens.promptTokens,
        completion_tokens: tokens.completionTokens,
        total_tokens: 0,
      })) +
      (judge === undefined
        ? 0
        : await this.costOf(organizationId, judge.model, {
            prompt_tokens: tokens.judgePromptTokens,
            completion_tokens: tokens.judgeCompletionTokens,
            total_tokens: 0,
          }));
    return {
      case_count: prepared.cases.length,
      model_calls: tokens.modelCalls + (judge === undefined ? 0 : tokens.judgeCalls),
      estimated_prompt_tokens: tokens.promptTokens + tokens.judgePromptTokens,
      estimated_completion_tokens: tokens.completionTokens + tokens.judgeCompletionTokens,
      estimated_cost_usd: dollars(cost),
    };
  }

  private async costOf(organizationId: number, model: string, usage: Usage): Promise<number> {
    const own = await listModelPrices(this.dependencies.db, [organizationId]);
    const price = priceOf(own, model) ?? priceOf(DEFAULT_MODEL_PRICES, model);
    return costInMicroDollars(price, usage.prompt_tokens, usage.completion_tokens);
  }

  /** The background job: cases TEST_RUN_CONCURRENCY at a time, each result stored as it ends, then the run's end. */
  private async execute(runId: number, prepared: PreparedRun, controller: AbortController): Promise<void> {
    const { db, serverStopping, limits, leaseOwner } = this.dependencies;
    const signal = AbortSignal.any([controller.signal, serverStopping]);
    const lease = this.leases.keep(runId, controller);
    let status = 'completed';
    try {
      const runner = await this.caseRunner(runId, prepared, signal);
      const queue = [...prepared.cases];
      const worker = async (): Promise<void> => {
        for (let testCase = queue.shift(); testCase !== undefined && !signal.aborted; testCase = queue.shift()) {
          if (await isTestRunStopRequested(db, runId)) {
            controller.abort();
            return;
          }
          const result = await executeCase(
            { ...runner, context: { ...runner.context, requestId: `test-run-${runId}-${testCase.id}` } },
            testCase,
          );
          await this.keep(runId, result);
        }
      };
      await Promise.allSettled(Array.from({ length: Math.min(limits.concurrency, queue.length) }, worker));
    } catch {
      status = 'interrupted';
    } finally {
      clearInterval(lease);
    }
    if (controller.signal.aborted) status = 'stopped';
    else if (serverStopping.aborted) status = 'interrupted';
    await finishTestRun(db, { id: runId, leaseOwner }, status, nowTimestamp()).catch(() => undefined);
  }

  private async keep(runId: number, result: TestResultView): Promise<void> {
    const { answers, sources, tool_steps, expectations, error } = result;
    await insertTestResult(this.dependencies.db, {
      run_id: runId,
      case_id: result.case_id,
      case_name: result.case_name,
      verdict: result.verdict,
      answer: result.answer,
      details: JSON.stringify({ answers, sources, tool_steps, expectations, error }),
      prompt_tokens: result.prompt_tokens,
      completion_tokens: result.completion_tokens,
      cost_micro_usd: Math.round(result.cost_usd * 1_000_000),
      duration_ms: result.duration_ms,
      created_at: nowTimestamp(),
    });
  }

  private async caseRunner(runId: number, prepared: PreparedRun, signal: AbortSignal): Promise<CaseRunner> {
    const { db, completions, rubricReaderFor } = this.dependencies;
    const record = recordWithSnapshot(prepared.record, prepared.snapshot);
    const ownerRow = await findUserById(db, record.owner_id);
    if (ownerRow === undefined) throw new AppError('not_found', 'Assistant not found.');
    const owner = identityOf(ownerRow, 'assistant_owner', 0);
    const judgeModel = await this.judgeModel(record.organization_id);
    const rubrics = rubricReaderFor(owner);
    return {
      completions,
      context: { identity: owner, requestId: `test-run-${runId}` },
      record,
      signal,
      costOf: (model, usage) => this.costOf(record.organization_id, model, usage),
      judge: {
        model: judgeModel,
        timeoutMilliseconds: this.dependencies.limits.judgeTimeoutMilliseconds,
        rubricDocument: (rubricId) =>
          rubrics.evaluation(rubricId, 'markdown').then(
            (evaluation) => evaluation.document,
            () => undefined,
          ),
        count: (usage, durationMilliseconds, outcome) =>
          this.countJudgeCall({ record, owner, runId, judgeModel }, { usage, durationMilliseconds, outcome }),
      },
    };
  }

  private async judgeModel(organizationId: number): Promise<JudgeModel | undefined> {
    const choice = await this.dependencies.smallFastModelFor(organizationId);
    const connector = choice === undefined ? undefined : this.dependencies.registries.connectors.get(choice.connector);
    if (choice === undefined || connector === undefined) return undefined;
    const providerFor = await this.dependencies.providersFor(organizationId);
    return { connector, connectorName: choice.connector, model: choice.model, provider: providerFor(choice.connector) };
  }

  /** The judge call's usage row, marked as test traffic, for the owner and the assistant; answers its cost. */
  private async countJudgeCall(
    about: { record: AssistantRecord; owner: Identity; runId: number; judgeModel: JudgeModel | undefined },
    call: { usage: Usage; durationMilliseconds: number; outcome: string },
  ): Promise<number> {
    const { record, owner, runId, judgeModel } = about;
    if (judgeModel === undefined) return 0;
    await this.dependencies.runRecords
      .write({
        usage: {
          created_at: nowTimestamp(),
          organization_id: record.organization_id,
          user_id: owner.userId,
          assistant_id: record.id,
          connector: judgeModel.connectorName,
          model: judgeModel.model,
          prompt_tokens: call.usage.prompt_tokens,
          completion_tokens: call.usage.completion_tokens,
          total_tokens: call.usage.total_tokens,
          duration_ms: call.durationMilliseconds,
          outcome: call.outcome,
          request_id: `test-run-${runId}`,
          traffic: 'test',
        },
      })
      .catch(() => undefined);
    return this.costOf(record.organization_id, judgeModel.model, call.usage);
  }
}
