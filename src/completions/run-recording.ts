/**
 * What the store keeps of each run: one usage-log row saying how the request ended (completed,
 * cancelled, or failed with a stable error code) and what it used, written however the run ends,
 * even when the client goes away; and, for a verbose assistant, its trace, which only those who
 * may see the assistant's traces read back.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { requireTraceAccess } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import type { AssistantSnapshot } from '../pipeline/assistant-metadata/assistant-snapshot.js';
import { NO_USAGE, type PipelineEvent, type Usage } from '../pipeline/conversation/events.js';
import type { PipelineTrace } from '../pipeline/run-assistant.js';
import type { AssistantRecord } from '../store/assistants-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import { findTrace } from '../store/traces-repository.js';
import type { RunRecordWriter } from './run-record-writer.js';

/** One run as it is recorded; the pipeline fills `trace` in as it ends. */
export interface RunRecord {
  context: CallContext;
  record: AssistantRecord;
  snapshot: AssistantSnapshot;
  traceId: string | undefined;
  signal: AbortSignal;
  trace?: PipelineTrace;
  /** The quota reservation the run holds, settled with its usage row (src/usage/quota-admission.ts). */
  reservationId?: number | undefined;
  /** 'test' for an assistant's test runs, kept on the usage row (docs/assistant-tests.md). */
  traffic?: 'test' | undefined;
}

/** How one run ended and what it used. */
interface RunEnding {
  usage: Usage;
  outcome: string;
  durationMilliseconds: number;
}

async function persist(writer: RunRecordWriter, run: RunRecord, ending: RunEnding): Promise<void> {
  const { usage, outcome, durationMilliseconds } = ending;
  const createdAt = nowTimestamp();
  const usageRow = {
    created_at: createdAt,
    organization_id: run.record.organization_id,
    user_id: run.context.identity.userId,
    assistant_id: run.record.id,
    connector: run.trace?.connector ?? run.snapshot.metadata.connector ?? 'openai',
    model: run.trace?.model ?? run.snapshot.metadata.llm ?? '',
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    duration_ms: durationMilliseconds,
    outcome,
    request_id: run.context.requestId,
    traffic: run.traffic ?? null,
  };
  const settles = run.reservationId;
  if (run.traceId === undefined || run.trace === undefined) {
    await writer.write({ usage: usageRow, settles });
    return;
  }
  const pipelineTrace = run.trace;
  const trace = {
    id: run.traceId,
    created_at: createdAt,
    assistant_id: run.record.id,
    owner_id: run.record.owner_id,
    organization_id: run.record.organization_id,
    caller_user_id: run.context.identity.userId,
    request_id: run.context.requestId,
    traceJson: () => JSON.stringify({ ...pipelineTrace, outcome, durationMilliseconds }),
  };
  await writer.write({ usage: usageRow, trace, settles });
}

/** Passes the events on; when the run ends, however it ends, writes its usage row and (if verbose) its trace. */
export async function* recordedRun(
  writer: RunRecordWriter,
  events: AsyncGenerator<PipelineEvent>,
  run: RunRecord,
): AsyncGenerator<PipelineEvent> {
  const started = performance.now();
  let usage: Usage = NO_USAGE;
  let outcome = 'cancelled';
  const durationMilliseconds = (): number => Math.round(performance.now() - started);
  try {
    for await (const event of events) {
      if (event.type === 'usage') usage = event.usage;
      yield event;
    }
    outcome = 'completed';
  } catch (error) {
    outcome = run.signal.aborted ? 'cancelled' : `failed:${error instanceof AppError ? error.code : 'internal_error'}`;
    throw error;
  } finally {
    if (outcome !== 'completed') {
      // A run that did not complete never yields its usage event; its trace kept what the provider reported.
      // It keeps its own error (or its cancellation): a record that could not be kept does not replace it.
      await persist(writer, run, { usage: run.trace?.usage ?? usage, outcome, durationMilliseconds: durationMilliseconds() }).catch(
        () => undefined,
      );
    }
  }
  // A completed run reports that its record could not be kept.
  await persist(writer, run, { usage, outcome, durationMilliseconds: durationMilliseconds() });
}

/** A stored trace, for those who may see the traces of its assistant; 404 when there is none. */
export async function readTrace(
  db: Kysely<Database>,
  writer: RunRecordWriter,
  context: CallContext,
  traceId: string,
): Promise<Record<string, unknown>> {
  // A trace this process still holds in its batch is written first, so its own runs' traces are readable at once.
  await writer.flush();
  const row = await findTrace(db, traceId);
  if (!row) throw new AppError('not_found', 'Trace not found.');
  requireTraceAccess(context.identity, { assistantOwnerId: row.owner_id, organizationId: row.organization_id });
  return {
    id: row.id,
    created_at: row.created_at,
    assistant_id: row.assistant_id,
    request_id: row.request_id,
    ...(JSON.parse(row.trace) as Record<string, unknown>),
  };
}
