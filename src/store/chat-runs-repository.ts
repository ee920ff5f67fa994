/**
 * The store of chat runs (migration 0070): an answer being produced for a chat, its lease, its
 * stop flag, and its append-only event log. Every process reads and writes runs only through here,
 * so a run started on one process can be followed and stopped from another.
 */
import type { Kysely } from 'kysely';
import type { ChatRunStatus, Database } from './schema.js';

export interface ChatRunRecord {
  id: number;
  chat_id: number;
  owner_id: number;
  status: ChatRunStatus;
  stop_requested: number;
  lease_owner: string;
  lease_expires_at: string;
  watched_at: string;
  started_at: string;
  ended_at: string | null;
}

export interface StoredRunEvent {
  sequence: number;
  event: string;
}

export interface NewChatRun {
  chatId: number;
  ownerId: number;
  leaseOwner: string;
  leaseExpiresAt: string;
  now: string;
}

/** Runs still marked running whose process let the lease run out: they will never finish. */
export async function listExpiredRunningRuns(db: Kysely<Database>, now: string): Promise<ChatRunRecord[]> {
  return db.selectFrom('chat_runs').selectAll().where('status', '=', 'running').where('lease_expires_at', '<', now).execute();
}

/** Marks one expired run interrupted; true for the one caller (on any process) that did, so its answer is kept once. */
export async function markRunInterrupted(db: Kysely<Database>, runId: number, now: string): Promise<boolean> {
  const result = await db
    .updateTable('chat_runs')
    .set({ status: 'interrupted', ended_at: now })
    .where('id', '=', runId)
    .where('status', '=', 'running')
    .where('lease_expires_at', '<', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Removes runs that ended before `before`, with their event logs; returns how many events went. */
export async function deleteRunsEndedBefore(db: Kysely<Database>, before: string): Promise<number> {
  const ended = (eb: Kysely<Database>) =>
    eb.selectFrom('chat_runs').select('id').where('status', '!=', 'running').where('ended_at', '<', before);
  const events = await db.deleteFrom('chat_run_events').where('run_id', 'in', ended(db)).executeTakeFirst();
  await db.deleteFrom('chat_runs').where('status', '!=', 'running').where('ended_at', '<', before).execute();
  return Number(events.numDeletedRows);
}

export async function countRunningRunsOfOwner(db: Kysely<Database>, ownerId: number): Promise<number> {
  const row = await db
    .selectFrom('chat_runs')
    .select((expression) => expression.fn.countAll<number | string>().as('count'))
    .where('owner_id', '=', ownerId)
    .where('status', '=', 'running')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertChatRun(db: Kysely<Database>, run: NewChatRun): Promise<number> {
  const row = await db
    .insertInto('chat_runs')
    .values({
      chat_id: run.chatId,
      owner_id: run.ownerId,
      status: 'running',
      lease_owner: run.leaseOwner,
      lease_expires_at: run.leaseExpiresAt,
      watched_at: run.now,
      started_at: run.now,
      ended_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export async function findChatRun(db: Kysely<Database>, runId: number): Promise<ChatRunRecord | undefined> {
  return db.selectFrom('chat_runs').selectAll().where('id', '=', runId).executeTakeFirst();
}

/** The chat's run that is still running, if any. */
export async function findRunningRunOfChat(db: Kysely<Database>, chatId: number): Promise<ChatRunRecord | undefined> {
  return db.selectFrom('chat_runs').selectAll().where('chat_id', '=', chatId).where('status', '=', 'running').executeTakeFirst();
}

export async function appendRunEvents(db: Kysely<Database>, runId: number, events: readonly StoredRunEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db
    .insertInto('chat_run_events')
    .values(events.map((event) => ({ run_id: runId, sequence: event.sequence, event: event.event })))
    .execute();
}

export async function listRunEventsAfter(
  db: Kysely<Database>,
  runId: number,
  afterSequence: number,
  limit: number,
): Promise<StoredRunEvent[]> {
  return db
    .selectFrom('chat_run_events')
    .select(['sequence', 'event'])
    .where('run_id', '=', runId)
    .where('sequence', '>', afterSequence)
    .orderBy('sequence')
    .limit(limit)
    .execute();
}

/** Renews the lease of a run this process still owns; false when the run is no longer its own or no longer running. */
export async function renewRunLease(db: Kysely<Database>, runId: number, leaseOwner: string, expiresAt: string): Promise<boolean> {
  const result = await db
    .updateTable('chat_runs')
    .set({ lease_expires_at: expiresAt })
    .where('id', '=', runId)
    .where('lease_owner', '=', leaseOwner)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function requestRunStop(db: Kysely<Database>, chatId: number): Promise<void> {
  await db.updateTable('chat_runs').set({ stop_requested: 1 }).where('chat_id', '=', chatId).where('status', '=', 'running').execute();
}

export async function markRunWatched(db: Kysely<Database>, runId: number, now: string): Promise<void> {
  await db.updateTable('chat_runs').set({ watched_at: now }).where('id', '=', runId).where('status', '=', 'running').execute();
}

export async function finishChatRun(db: Kysely<Database>, runId: number, status: ChatRunStatus, now: string): Promise<void> {
  await db.updateTable('chat_runs').set({ status, ended_at: now }).where('id', '=', runId).where('status', '=', 'running').execute();
}
