/**
 * The queries of assistants' test cases, test runs and results (migration 0080,
 * docs/assistant-tests.md). Lists are paged, newest first for runs and oldest first for cases, in
 * the order a teacher wrote them.
 */
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { PageBounds } from '../validation/page-query-schema.js';
import type { AssistantTestCasesTable, AssistantTestResultsTable, AssistantTestRunsTable, Database } from './schema.js';

export type TestCaseRow = Selectable<AssistantTestCasesTable>;
export type TestRunRow = Selectable<AssistantTestRunsTable>;
export type TestResultRow = Selectable<AssistantTestResultsTable>;

export async function insertTestCases(db: Kysely<Database>, rows: Insertable<AssistantTestCasesTable>[]): Promise<number[]> {
  const ids: number[] = [];
  // One at a time: both dialects return the id of each, in order.
  for (const row of rows) {
    const inserted = await db.insertInto('assistant_test_cases').values(row).returning('id').executeTakeFirstOrThrow();
    ids.push(inserted.id);
  }
  return ids;
}

export async function countTestCases(db: Kysely<Database>, assistantId: number): Promise<number> {
  const counted = await db
    .selectFrom('assistant_test_cases')
    .where('assistant_id', '=', assistantId)
    .select((expression) => expression.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(counted.count);
}

export async function listTestCases(
  db: Kysely<Database>,
  assistantId: number,
  page: PageBounds,
): Promise<{ items: TestCaseRow[]; total: number }> {
  const items = await db
    .selectFrom('assistant_test_cases')
    .selectAll()
    .where('assistant_id', '=', assistantId)
    .orderBy('id', 'asc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { items, total: await countTestCases(db, assistantId) };
}

/** The assistant's cases with these ids (every case when `ids` is undefined), in id order. */
export async function findTestCases(db: Kysely<Database>, assistantId: number, ids: readonly number[] | undefined): Promise<TestCaseRow[]> {
  let query = db.selectFrom('assistant_test_cases').selectAll().where('assistant_id', '=', assistantId);
  if (ids !== undefined) query = query.where('id', 'in', [...ids]);
  return query.orderBy('id', 'asc').execute();
}

export async function findTestCase(db: Kysely<Database>, assistantId: number, caseId: number): Promise<TestCaseRow | undefined> {
  return db
    .selectFrom('assistant_test_cases')
    .selectAll()
    .where('assistant_id', '=', assistantId)
    .where('id', '=', caseId)
    .executeTakeFirst();
}

export async function updateTestCase(
  db: Kysely<Database>,
  caseId: number,
  changes: Pick<AssistantTestCasesTable, 'name' | 'kind' | 'turns' | 'expectations' | 'updated_at'>,
): Promise<void> {
  await db.updateTable('assistant_test_cases').set(changes).where('id', '=', caseId).execute();
}

export async function deleteTestCase(db: Kysely<Database>, caseId: number): Promise<void> {
  await db.deleteFrom('assistant_test_cases').where('id', '=', caseId).execute();
}

export async function insertTestRun(db: Kysely<Database>, row: Insertable<AssistantTestRunsTable>): Promise<number> {
  const inserted = await db.insertInto('assistant_test_runs').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

export async function countRunningTestRuns(db: Kysely<Database>, assistantId: number): Promise<number> {
  const counted = await db
    .selectFrom('assistant_test_runs')
    .where('assistant_id', '=', assistantId)
    .where('status', '=', 'running')
    .select((expression) => expression.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(counted.count);
}

export async function findTestRun(db: Kysely<Database>, assistantId: number, runId: number): Promise<TestRunRow | undefined> {
  return db
    .selectFrom('assistant_test_runs')
    .selectAll()
    .where('assistant_id', '=', assistantId)
    .where('id', '=', runId)
    .executeTakeFirst();
}

export async function listTestRuns(
  db: Kysely<Database>,
  assistantId: number,
  page: PageBounds,
): Promise<{ items: TestRunRow[]; total: number }> {
  const items = await db
    .selectFrom('assistant_test_runs')
    .selectAll()
    .where('assistant_id', '=', assistantId)
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const counted = await db
    .selectFrom('assistant_test_runs')
    .where('assistant_id', '=', assistantId)
    .select((expression) => expression.fn.countAll<number | string>().as('count'))
    .executeTakeFirstOrThrow();
  return { items, total: Number(counted.count) };
}

/** Marks the run stopping; the process running it sees the flag before its next case. */
export async function requestTestRunStop(db: Kysely<Database>, runId: number): Promise<void> {
  await db.updateTable('assistant_test_runs').set({ stop_requested: 1 }).where('id', '=', runId).execute();
}

export async function isTestRunStopRequested(db: Kysely<Database>, runId: number): Promise<boolean> {
  const row = await db.selectFrom('assistant_test_runs').select('stop_requested').where('id', '=', runId).executeTakeFirst();
  return row === undefined || row.stop_requested === 1;
}

export async function finishTestRun(db: Kysely<Database>, runId: number, status: string, finishedAt: string): Promise<void> {
  await db.updateTable('assistant_test_runs').set({ status, finished_at: finishedAt }).where('id', '=', runId).execute();
}

export async function insertTestResult(db: Kysely<Database>, row: Insertable<AssistantTestResultsTable>): Promise<void> {
  await db.insertInto('assistant_test_results').values(row).execute();
}

export async function listTestResults(db: Kysely<Database>, runIds: readonly number[]): Promise<TestResultRow[]> {
  if (runIds.length === 0) return [];
  return db
    .selectFrom('assistant_test_results')
    .selectAll()
    .where('run_id', 'in', [...runIds])
    .orderBy('case_id', 'asc')
    .execute();
}

/** Per run: how many results, of each verdict, and their summed cost. */
export interface ResultTally {
  run_id: number;
  verdict: string;
  count: number | string;
  cost: number | string | null;
}

export async function tallyTestResults(db: Kysely<Database>, runIds: readonly number[]): Promise<ResultTally[]> {
  if (runIds.length === 0) return [];
  return db
    .selectFrom('assistant_test_results')
    .where('run_id', 'in', [...runIds])
    .groupBy(['run_id', 'verdict'])
    .select((expression) => [
      'run_id',
      'verdict',
      expression.fn.countAll<number | string>().as('count'),
      expression.fn.sum<number | string | null>('cost_micro_usd').as('cost'),
    ])
    .execute();
}
