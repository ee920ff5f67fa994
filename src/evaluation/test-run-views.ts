/**
 * How test runs and their results are shown (docs/assistant-tests.md): a run's summary counts
 * its finished cases by verdict and sums their measured cost from the stored results, so every
 * process shows the same progress; a result row's JSON details are read back into its view.
 */
import type { Kysely } from 'kysely';
import { listTestResults, tallyTestResults, type TestResultRow, type TestRunRow } from '../store/assistant-tests-repository.js';
import type { Database } from '../store/schema.js';
import type { TestResultView, TestRunStatus, TestRunSummaryView, Verdict } from './assistant-test-schemas.js';

const MICRO_DOLLARS_PER_DOLLAR = 1_000_000;

/** What a result row keeps as JSON in `details`. */
export type ResultDetails = Pick<TestResultView, 'answers' | 'sources' | 'tool_steps' | 'expectations' | 'error'>;

export function resultView(row: TestResultRow): TestResultView {
  const details = JSON.parse(row.details) as ResultDetails;
  return {
    case_id: row.case_id,
    case_name: row.case_name,
    verdict: row.verdict as Verdict,
    answer: row.answer,
    ...details,
    prompt_tokens: row.prompt_tokens,
    completion_tokens: row.completion_tokens,
    cost_usd: row.cost_micro_usd / MICRO_DOLLARS_PER_DOLLAR,
    duration_ms: row.duration_ms,
  };
}

export function dollars(microDollars: number): number {
  return microDollars / MICRO_DOLLARS_PER_DOLLAR;
}

export async function runSummaries(db: Kysely<Database>, rows: readonly TestRunRow[]): Promise<TestRunSummaryView[]> {
  const tallies = await tallyTestResults(
    db,
    rows.map((row) => row.id),
  );
  return rows.map((row) => {
    const verdicts = { pass: 0, fail: 0, mixed: 0, not_judged: 0, error: 0 };
    let cost = 0;
    let finished = 0;
    for (const tally of tallies.filter((entry) => entry.run_id === row.id)) {
      const count = Number(tally.count);
      verdicts[tally.verdict as Verdict] += count;
      finished += count;
      cost += Number(tally.cost ?? 0);
    }
    return {
      id: row.id,
      assistant_id: row.assistant_id,
      status: row.status as TestRunStatus,
      snapshot_source: row.snapshot_source as 'saved' | 'draft',
      case_count: (JSON.parse(row.case_ids) as number[]).length,
      finished_count: finished,
      verdicts,
      estimated_cost_usd: dollars(row.estimated_cost_micro_usd),
      cost_usd: dollars(cost),
      created_at: row.created_at,
      finished_at: row.finished_at,
    };
  });
}

export async function resultsOf(db: Kysely<Database>, runId: number): Promise<TestResultView[]> {
  return (await listTestResults(db, [runId])).map(resultView);
}
