/**
 * Run recording writes one usage row however a run ends, and a run keeps its own ending: a
 * failed or cancelled run is never turned into a store error, while a completed run whose record
 * could not be kept says so. A fake store stands in for the database, so that it can fail on demand.
 */
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { CallContext } from '../auth/call-context.js';
import { AppError } from '../errors/app-error.js';
import type { AssistantSnapshot } from '../pipeline/assistant-metadata/assistant-snapshot.js';
import type { PipelineEvent } from '../pipeline/conversation/events.js';
import type { PipelineTrace } from '../pipeline/run-assistant.js';
import type { AssistantRecord } from '../store/assistants-repository.js';
import type { Database } from '../store/schema.js';
import { RunRecordWriter } from './run-record-writer.js';
import { recordedRun as recordedRunOver, type RunRecord } from './run-recording.js';

interface WrittenRow {
  table: string;
  row: Record<string, unknown>;
}

/**
 * Just enough of Kysely for insertUsageLog, insertTrace and the daily roll-up (an upsert after
 * reading the organization's model prices, here none), in a transaction that is the store itself;
 * fails every insert when asked to. The roll-up itself is proven on real stores in
 * test/usage-roll-up-counts-every-model-call.test.ts.
 */
function fakeStore(failing = false): { db: Kysely<Database>; written: WrittenRow[] } {
  const written: WrittenRow[] = [];
  const execute = (table: string, row: Record<string, unknown>) => async () => {
    if (failing) throw new Error('the store is down');
    written.push({ table, row });
    return [];
  };
  const db: Record<string, unknown> = {
    insertInto: (table: string) => ({
      values: (row: Record<string, unknown>) => ({ execute: execute(table, row), onConflict: () => ({ execute: execute(table, row) }) }),
    }),
    selectFrom: () => ({ selectAll: () => ({ where: () => ({ orderBy: () => ({ execute: async () => [] }) }) }) }),
    transaction: () => ({ execute: async (work: (transaction: unknown) => Promise<unknown>) => work(db) }),
  };
  return { db: db as unknown as Kysely<Database>, written };
}

/** Records written before each answer ends (a window of 0), so the store's failures reach the run. */
function recordedRun(db: Kysely<Database>, stream: AsyncGenerator<PipelineEvent>, run: RunRecord): AsyncGenerator<PipelineEvent> {
  return recordedRunOver(new RunRecordWriter(db, { windowMilliseconds: 0, batchMaximum: 1 }), stream, run);
}

const USAGE = { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 };
const TRACE_USAGE = { prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 };

function runRecord(options: { signal?: AbortSignal; traceId?: string; trace?: PipelineTrace } = {}): RunRecord {
  return {
    context: { identity: { userId: 11 }, requestId: 'request-1' } as CallContext,
    record: { id: 21, owner_id: 31, organization_id: 41 } as AssistantRecord,
    snapshot: { metadata: { connector: 'openai', llm: 'gpt-test' } } as unknown as AssistantSnapshot,
    traceId: options.traceId,
    signal: options.signal ?? new AbortController().signal,
    ...(options.trace !== undefined && { trace: options.trace }),
  };
}

async function* events(ending: 'complete' | Error): AsyncGenerator<PipelineEvent> {
  yield { type: 'text-delta', text: 'Hello' };
  if (ending !== 'complete') throw ending;
  yield { type: 'usage', usage: USAGE };
}

async function drain(stream: AsyncGenerator<PipelineEvent>): Promise<PipelineEvent[]> {
  const seen: PipelineEvent[] = [];
  for await (const event of stream) seen.push(event);
  return seen;
}

function usageRow(written: WrittenRow[]): Record<string, unknown> {
  const rows = written.filter((entry) => entry.table === 'usage_logs');
  expect(rows).toHaveLength(1);
  return rows[0]!.row;
}

describe('run recording', () => {
  it('passes every event on and records a completed run with the usage it reported', async () => {
    const { db, written } = fakeStore();
    const seen = await drain(recordedRun(db, events('complete'), runRecord()));
    expect(seen.map((event) => event.type)).toEqual(['text-delta', 'usage']);
    expect(usageRow(written)).toMatchObject({
      outcome: 'completed',
      user_id: 11,
      assistant_id: 21,
      organization_id: 41,
      connector: 'openai',
      model: 'gpt-test',
      total_tokens: 7,
      request_id: 'request-1',
    });
    expect(written.filter((entry) => entry.table === 'traces')).toHaveLength(0);
  });

  it('stores the trace of a verbose run with how it ended', async () => {
    const { db, written } = fakeStore();
    const trace = { connector: 'ollama', model: 'llama-test', usage: TRACE_USAGE } as PipelineTrace;
    await drain(recordedRun(db, events('complete'), runRecord({ traceId: 'trace-1', trace })));
    expect(usageRow(written)).toMatchObject({ connector: 'ollama', model: 'llama-test', total_tokens: 7 });
    const traces = written.filter((entry) => entry.table === 'traces');
    expect(traces).toHaveLength(1);
    expect(traces[0]!.row).toMatchObject({ id: 'trace-1', owner_id: 31, caller_user_id: 11 });
    expect(JSON.parse(traces[0]!.row.trace as string)).toMatchObject({ outcome: 'completed', model: 'llama-test' });
  });

  it('records a failed run by its error code, with the usage its trace kept, and rethrows its error', async () => {
    const { db, written } = fakeStore();
    const trace = { connector: 'openai', model: 'gpt-test', usage: TRACE_USAGE } as PipelineTrace;
    const failure = new AppError('upstream_timeout');
    await expect(drain(recordedRun(db, events(failure), runRecord({ trace })))).rejects.toBe(failure);
    expect(usageRow(written)).toMatchObject({ outcome: 'failed:upstream_timeout', total_tokens: 5 });
  });

  it('records an error that is not an AppError as internal_error', async () => {
    const { db, written } = fakeStore();
    await expect(drain(recordedRun(db, events(new Error('boom')), runRecord()))).rejects.toThrow('boom');
    expect(usageRow(written)).toMatchObject({ outcome: 'failed:internal_error', total_tokens: 0 });
  });

  it('records a run whose signal aborted, or that its reader left, as cancelled', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const first = fakeStore();
    await expect(drain(recordedRun(first.db, events(new Error('aborted')), runRecord({ signal: aborted.signal })))).rejects.toThrow();
    expect(usageRow(first.written)).toMatchObject({ outcome: 'cancelled' });

    const second = fakeStore();
    for await (const event of recordedRun(second.db, events('complete'), runRecord())) {
      expect(event.type).toBe('text-delta');
      break;
    }
    expect(usageRow(second.written)).toMatchObject({ outcome: 'cancelled' });
  });

  it('tells the reader of a completed run that its record could not be kept', async () => {
    const { db } = fakeStore(true);
    await expect(drain(recordedRun(db, events('complete'), runRecord()))).rejects.toThrow('the store is down');
  });

  it('keeps a failed or left run its own ending when its record cannot be kept', async () => {
    const failure = new AppError('upstream_timeout');
    await expect(drain(recordedRun(fakeStore(true).db, events(failure), runRecord()))).rejects.toBe(failure);
    const left = recordedRun(fakeStore(true).db, events('complete'), runRecord());
    await left.next();
    await expect(left.return(undefined)).resolves.toEqual({ done: true, value: undefined });
  });
});
