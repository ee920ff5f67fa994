/**
 * How runners take ingestion jobs. A runner claims a batch of jobs: it reads the oldest claimable
 * ones (pending, or processing under a lease that expired with attempts left) with their
 * documents' sizes, keeps as many as its byte room allows, and takes them with one UPDATE that
 * checks every row's claimable state again, so a row another runner took meanwhile is left out:
 * SQLite takes its write lock before that statement reads anything, and PostgreSQL locks the
 * chosen rows with FOR UPDATE SKIP LOCKED, so two runners never claim the same job at once.
 * A job left processing under an expired lease was cut short (its process died or stalled); once
 * that has happened as often as the attempts cap allows, the claim fails the job instead of
 * starting it again, so one document that kills the server cannot keep killing it after every
 * restart. The cap is decided here, in the store, because every process sharing it must agree.
 */
import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Dialect } from './dialect.js';
import type { IngestionJobRow } from './ingestion-jobs-repository.js';
import { setDocumentStatus } from './knowledge-documents-repository.js';
import { nowTimestamp, type Database } from './schema.js';

export interface IngestionClaim {
  /** The runner claiming, as written in `lease_owner`. */
  owner: string;
  leaseExpiresAt: string;
  /** INGESTION_ATTEMPTS_MAX: a job cut short after this many starts since it was queued fails instead of starting again. */
  attemptsMaximum: number;
  /**
   * The jobs the claiming runner is still working on: never taken over or failed by its own claim,
   * even when their lease has run out (a runner holds several jobs at once, all under one owner name).
   */
  heldJobIds?: readonly number[];
}

export interface IngestionBatchClaim extends IngestionClaim {
  /** The most jobs this claim takes. */
  jobsMaximum: number;
  /**
   * The most bytes of documents the jobs taken may add up to. The oldest job is taken whatever
   * its size when `firstJobAlways` is set (a runner holding nothing must be able to take a large
   * document); otherwise a job that does not fit ends the batch.
   */
  bytesMaximum: number;
  firstJobAlways: boolean;
  /**
   * A claim whose oldest job is a small text document (as `isSmall` says from its file name and
   * size) takes up to `jobsMaximum` of them instead, stopping at the first job of another kind:
   * small texts are read by linear code in milliseconds, so none holds the others of its batch
   * long, while fewer, larger batches write the index in fewer transactions. With `jobsMinimum`, such
   * a claim takes none unless that many are claimable (a runner claiming while its last batch
   * writes waits for a whole batch rather than take a few at a higher cost a document).
   */
  smallTexts?: { jobsMaximum: number; jobsMinimum?: number; isSmall: (fileName: string, sizeBytes: number) => boolean };
}

/** What a runner needs of a job it claimed (a claim of 256 built each row of all 16 columns: 3 ms). */
const CLAIMED_JOB_COLUMNS = ['id', 'document_id', 'knowledge_base_id', 'attempts', 'requested_by'] as const;
export type ClaimedJob = Pick<IngestionJobRow, (typeof CLAIMED_JOB_COLUMNS)[number]>;

export interface IngestionClaimResult {
  /** The jobs now held by the claiming runner, oldest first (none when nothing waited). */
  jobs: ClaimedJob[];
  /** The bytes of those jobs' documents. */
  bytes: number;
  /** Jobs this claim failed because they had been cut short as often as the cap allows. */
  failedJobs: Array<{ id: number; documentId: number; attempts: number }>;
  /** Whether any job was claimable, taken or not (false: nothing waits for this runner). */
  waiting: boolean;
  /** Whether the jobs were taken as a batch of small text documents. */
  smallTexts: boolean;
}

/** The reason a job fails once the server stopped mid-way through it as often as the cap allows: a sentence for the creator. */
export function serverStoppedMessage(times: number): string {
  const count = times === 1 ? 'once' : `${times} times`;
  return `The server stopped ${count} while processing this document, so it is not started again automatically: the document may be too large or too complex for this server. Check the file (or split it into smaller ones), then retry the job or upload it again.`;
}

/** Fails, with their documents, the jobs cut short (processing under an expired lease) that have used up their attempts. */
async function failExhaustedJobs(db: Kysely<Database>, claim: IngestionClaim, now: string): Promise<IngestionClaimResult['failedJobs']> {
  const { attemptsMaximum, heldJobIds = [] } = claim;
  const exhausted = await db
    .selectFrom('ingestion_jobs')
    .select(['id', 'document_id', 'attempts_since_queued'])
    .where('status', '=', 'processing')
    .$if(heldJobIds.length > 0, (query) => query.where('id', 'not in', heldJobIds))
    .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]))
    .where('attempts_since_queued', '>=', attemptsMaximum)
    .orderBy('id')
    .execute();
  const failed: IngestionClaimResult['failedJobs'] = [];
  for (const candidate of exhausted) {
    const error = serverStoppedMessage(candidate.attempts_since_queued);
    const ended = await db.transaction().execute(async (transaction) => {
      // The same conditions again: of several processes failing the job at once, exactly one does.
      const result = await transaction
        .updateTable('ingestion_jobs')
        .set({ status: 'failed', message: 'Failed.', error, lease_owner: null, lease_expires_at: null, updated_at: now, finished_at: now })
        .where('id', '=', candidate.id)
        .where('status', '=', 'processing')
        .where('attempts_since_queued', '=', candidate.attempts_since_queued)
        .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<', now)]))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await setDocumentStatus(transaction, candidate.document_id, 'failed', error);
      return true;
    });
    if (ended) failed.push({ id: candidate.id, documentId: candidate.document_id, attempts: candidate.attempts_since_queued });
  }
  return failed;
}

/** The condition a job must meet to be claimed now: pending, or cut short with attempts left. */
function claimable(claim: IngestionClaim, now: string): RawBuilder<SqlBool> {
  const column = (name: string) => sql.ref(`ingestion_jobs.${name}`);
  return sql<SqlBool>`(${column('status')} = 'pending'
    or (${column('status')} = 'processing' and (${column('lease_expires_at')} is null or ${column('lease_expires_at')} < ${now})
        and ${column('attempts_since_queued')} < ${claim.attemptsMaximum}))`;
}

/**
 * The oldest claimable jobs, read as two runs of the (status, id) index, pending and processing,
 * each stopping at the claim's size (the status picks the run; `claimable` stays the one test of
 * what may be claimed): one condition with an OR made SQLite read every pending job
 * and sort them, so a claim cost more the longer the backlog (25 ms at 100,000 jobs), on the
 * event loop of the process claiming.
 */
function oldestClaimable(db: Kysely<Database>, claim: IngestionBatchClaim, now: string, limit: number) {
  const held = claim.heldJobIds ?? [];
  const run = (status: 'pending' | 'processing') =>
    db
      .selectFrom('ingestion_jobs')
      .select(['id', 'document_id'])
      .where('status', '=', status)
      .where(claimable(claim, now))
      .$if(held.length > 0, (query) => query.where('id', 'not in', held))
      .orderBy('id')
      .limit(limit);
  return db
    .selectFrom(run('pending').as('pending'))
    .selectAll()
    .unionAll(db.selectFrom(run('processing').as('processing')).selectAll());
}

/** The oldest claimable jobs the claim has room for, by their documents' sizes (empty when none is claimable, or none fits). */
async function chooseJobs(
  db: Kysely<Database>,
  claim: IngestionBatchClaim,
  now: string,
): Promise<{ chosen: Map<number, number>; waiting: boolean; textClaim: boolean }> {
  const { smallTexts } = claim;
  const limit = Math.max(claim.jobsMaximum, smallTexts?.jobsMaximum ?? 0);
  const candidates = await db
    .selectFrom(oldestClaimable(db, claim, now, limit).as('candidates'))
    .leftJoin('kb_documents', 'kb_documents.id', 'candidates.document_id')
    .select(['candidates.id as id', 'kb_documents.size_bytes as size_bytes', 'kb_documents.file_name as file_name'])
    .orderBy('candidates.id')
    .limit(limit)
    .execute();
  const isSmallText = (candidate: (typeof candidates)[number]) =>
    smallTexts !== undefined && candidate.file_name !== null && smallTexts.isSmall(candidate.file_name, candidate.size_bytes ?? 0);
  const textClaim = candidates[0] !== undefined && isSmallText(candidates[0]);
  const jobsMaximum = textClaim ? smallTexts!.jobsMaximum : claim.jobsMaximum;
  const chosen = new Map<number, number>();
  let bytes = 0;
  for (const candidate of candidates) {
    if (chosen.size >= jobsMaximum || (textClaim && !isSmallText(candidate))) break;
    const size = candidate.size_bytes ?? 0;
    bytes += size;
    if (bytes > claim.bytesMaximum && !(chosen.size === 0 && claim.firstJobAlways)) break;
    chosen.set(candidate.id, size);
  }
  if (textClaim && chosen.size < (smallTexts!.jobsMinimum ?? 0)) chosen.clear();
  return { chosen, waiting: candidates.length > 0, textClaim };
}

/**
 * Fails the jobs that were cut short too often, then claims for `claim.owner`, until
 * `claim.leaseExpiresAt`, the oldest jobs that are pending, or processing under a lease that
 * expired (their runner died) with attempts left: as many as `jobsMaximum` and `bytesMaximum`
 * allow. Jobs another runner claimed between the choice and the claim are left out.
 */
export async function claimIngestionJobs(
  db: Kysely<Database>,
  dialect: Dialect,
  claim: IngestionBatchClaim,
): Promise<IngestionClaimResult> {
  const now = nowTimestamp();
  const failedJobs = await failExhaustedJobs(db, claim, now);
  const { chosen, waiting, textClaim } = await chooseJobs(db, claim, now);
  if (chosen.size === 0) return { jobs: [], bytes: 0, failedJobs, waiting, smallTexts: false };
  const lock = dialect === 'postgres' ? sql`for update skip locked` : sql``;
  const result = await sql<ClaimedJob>`
    update ingestion_jobs
    set status = 'processing', lease_owner = ${claim.owner}, lease_expires_at = ${claim.leaseExpiresAt},
        attempts = attempts + 1, attempts_since_queued = attempts_since_queued + 1,
        progress_current = 0, progress_total = 0, message = 'Started.', error = null, updated_at = ${now}
    where id in (
      select id from ingestion_jobs
      where id in (${sql.join([...chosen.keys()])}) and ${claimable(claim, now)}
      order by id
      ${lock}
    )
    returning ${sql.join(CLAIMED_JOB_COLUMNS.map((column) => sql.ref(column)))}`.execute(db);
  const jobs = [...result.rows].sort((left, right) => left.id - right.id);
  const bytes = jobs.reduce((total, job) => total + (chosen.get(job.id) ?? 0), 0);
  return { jobs, bytes, failedJobs, waiting, smallTexts: textClaim };
}

/** Who holds the jobs being processed now: a start-up check looks for holders whose process has died. */
export async function listIngestionLeaseOwners(db: Kysely<Database>): Promise<string[]> {
  const rows = await db
    .selectFrom('ingestion_jobs')
    .select('lease_owner')
    .distinct()
    .where('status', '=', 'processing')
    .where('lease_owner', 'is not', null)
    .execute();
  return rows.map((row) => row.lease_owner).filter((owner): owner is string => owner !== null);
}

/**
 * Ends at once the leases `owners` hold on processing jobs, so that the next claim takes those
 * jobs over (counting the attempt like any other); only for owners known to be dead.
 */
export async function expireIngestionLeases(db: Kysely<Database>, owners: readonly string[]): Promise<number> {
  if (owners.length === 0) return 0;
  const result = await db
    .updateTable('ingestion_jobs')
    .set({ lease_expires_at: null, updated_at: nowTimestamp() })
    .where('status', '=', 'processing')
    .where('lease_owner', 'in', owners)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
