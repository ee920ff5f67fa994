/**
 * The queries of assistants' test cases, test runs and results (migration 0080,
 * docs/assistant-tests.md). Lists are paged, newest first for runs and oldest first for cases, in
 * the order a teacher wrote them. A running run is held under a lease (migration 0084): its process
 * renews it, and a run whose lease lapsed is marked interrupted by one caller only.
 */
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
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

/**
 * Ends a run its process still holds. A run another process already declared interrupted (its
 * lease had lapsed) stays interrupted: that is what its viewers were told.
 */
export async function finishTestRun(
  db: Kysely<Database>,
  run: { id: number; leaseOwner: string },
  status: string,
  finishedAt: string,
): Promise<void> {
  await db
    .updateTable('assistant_test_runs')
    .set({ status, finished_at: finishedAt })
    .where('id', '=', run.id)
    .where('status', '=', 'running')
    .where('lease_owner', '=', run.leaseOwner)
    .execute();
}

/**
 * Makes the rest of `transaction` the only one counting and adding the assistant's test cases or
 * runs: a write to the assistant's row, which PostgreSQL holds locked until the transaction ends
 * (another transaction's same write waits, then counts what this one added), and which on SQLite
 * is the transaction's first write, so it takes the write lock before anything is counted.
 */
export async function lockAssistantTests(transaction: Kysely<Database>, assistantId: number): Promise<void> {
  // Not the key column: SQLite would look for the children of an assigned key in every table that references assistants.
  await sql`update assistants set name = name where id = ${assistantId}`.execute(transaction);
}

/** A running run as its lease shows it. */
export type RunningTestRun = Pick<TestRunRow, 'id' | 'lease_owner' | 'lease_expires_at'>;

/** The running runs of one assistant, or of every assistant (the periodic sweep). */
export async function listRunningTestRuns(db: Kysely<Database>, assistantId?: number): Promise<RunningTestRun[]> {
  let query = db.selectFrom('assistant_test_runs').select(['id', 'lease_owner', 'lease_expires_at']).where('status', '=', 'running');
  if (assistantId !== undefined) query = query.where('assistant_id', '=', assistantId);
  return query.orderBy('id').execute();
}

/**
 * Marks the run interrupted if it is still running under the same owner: one caller wins however
 * many look at once.
 */
export async function interruptTestRun(db: Kysely<Database>, run: RunningTestRun, finishedAt: string): Promise<boolean> {
  const updated = await db
    .updateTable('assistant_test_runs')
    .set({ status: 'interrupted', finished_at: finishedAt })
    .where('id', '=', run.id)
    .where('status', '=', 'running')
    .where((expression) =>
      run.lease_owner === null ? expression('lease_owner', 'is', null) : expression('lease_owner', '=', run.lease_owner),
    )
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Renews the lease of a run this process still holds; false once it is no longer running or no longer its own. */
export async function renewTestRunLease(
  db: Kysely<Database>,
  run: { id: number; leaseOwner: string },
  expiresAt: string,
): Promise<boolean> {
  const updated = await db
    .updateTable('assistant_test_runs')
    .set({ lease_expires_at: expiresAt })
    .where('id', '=', run.id)
    .where('status', '=', 'running')
    .where('lease_owner', '=', run.leaseOwner)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
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
