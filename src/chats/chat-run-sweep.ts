/**
 * What is left of chat runs once they end (docs/chats.md). A run whose process died (`kill -9`, a
 * lost machine) stops renewing its lease; once the lease has lapsed, whoever looks first (a
 * question, a rejoin, a Stop, or this sweep) marks it interrupted and keeps the answer it had
 * logged, rebuilt from its `chat_run_events`, with finish reason `interrupted`, so the learner
 * sees what had arrived and a plain notice, not nothing. And a finished run's event log is only
 * needed while clients still replay it: one lease after the run ended, the sweep removes the run
 * and its log, so the log does not grow for ever. The sweep is periodic work (one process of the
 * fleet at a time), every CHAT_RUN_LEASE_MS.
 */
import type { Kysely } from 'kysely';
import type { PipelineEvent } from '../pipeline/conversation/events.js';
import { PeriodicWork } from '../scheduling/periodic-work.js';
import { deleteRunsEndedBefore, listExpiredRunningRuns, listRunEventsAfter, markRunInterrupted } from '../store/chat-runs-repository.js';
import type { Dialect } from '../store/dialect.js';
import type { Database } from '../store/schema.js';
import { AnswerDraft, type RecordedAnswer } from './answer-recording.js';

export const CHAT_RUN_SWEEP = 'chat-run-sweep';

/** Keeps a rebuilt answer as the chat's answer to its last question (ChatService does, as it keeps every answer). */
export type KeepInterruptedAnswer = (chatId: number, answer: RecordedAnswer) => Promise<void>;

export interface ChatRunSweepResult {
  interrupted: number;
  removedEvents: number;
}

const EVENTS_PER_READ = 500;

/** The answer a run had logged when it was cut off; an error it logged is not part of the answer. */
async function rebuiltAnswer(db: Kysely<Database>, runId: number): Promise<RecordedAnswer> {
  const draft = new AnswerDraft();
  let after = 0;
  for (;;) {
    const rows = await listRunEventsAfter(db, runId, after, EVENTS_PER_READ);
    for (const row of rows) {
      after = row.sequence;
      const event = JSON.parse(row.event) as PipelineEvent | { type: 'error' };
      if (event.type !== 'error') draft.add(event);
    }
    if (rows.length < EVENTS_PER_READ) return draft.result('interrupted');
  }
}

/**
 * Marks the runs whose lease lapsed before `now` interrupted, and keeps each one's answer. Each run
 * is marked by one caller only (a conditional update), so its answer is kept once however many
 * processes look at the same moment.
 */
export async function settleInterruptedRuns(db: Kysely<Database>, now: string, keepAnswer: KeepInterruptedAnswer): Promise<number> {
  let settled = 0;
  for (const run of await listExpiredRunningRuns(db, now)) {
    if (!(await markRunInterrupted(db, run.id, now))) continue;
    await keepAnswer(run.chat_id, await rebuiltAnswer(db, run.id));
    settled += 1;
  }
  return settled;
}

export interface ChatRunSweepOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  leaseMilliseconds: number;
  runner: string;
  keepAnswer: KeepInterruptedAnswer;
}

/** One pass: settle interrupted runs, then remove the runs (and logs) that ended more than a lease ago. */
export async function sweepChatRuns(options: ChatRunSweepOptions, now: number = Date.now()): Promise<ChatRunSweepResult> {
  const interrupted = await settleInterruptedRuns(options.db, new Date(now).toISOString(), options.keepAnswer);
  // A lease after its end, every client that rejoined it has long read its last event.
  const removedEvents = await deleteRunsEndedBefore(options.db, new Date(now - options.leaseMilliseconds).toISOString());
  return { interrupted, removedEvents };
}

export function chatRunSweeps(options: ChatRunSweepOptions): PeriodicWork<ChatRunSweepResult> {
  return new PeriodicWork<ChatRunSweepResult>({
    db: options.db,
    dialect: options.dialect,
    name: CHAT_RUN_SWEEP,
    intervalMilliseconds: options.leaseMilliseconds,
    runner: options.runner,
    work: () => sweepChatRuns(options),
    describe: (result) => (result.interrupted > 0 || result.removedEvents > 0 ? { ...result } : undefined),
  });
}
