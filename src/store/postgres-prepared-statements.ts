/**
 * Queries run again and again prepared once per PostgreSQL connection: the precompiled queries
 * every request runs (precompiled-query.ts) and a batch insert's one text per table
 * (row-batch-insert.ts).
 *
 * Kysely's PostgreSQL driver sends each query as an unnamed statement, which PostgreSQL parses and
 * plans anew every time. For the chat path's assistant lookup, a join with two `exists`
 * subqueries, planning took 0.25 to 0.34 ms of PostgreSQL's CPU a request, two to five times its
 * execution (`pg_stat_statements` under the gateway benchmark's load). A named statement is parsed
 * once per connection, and after a few runs PostgreSQL keeps a generic plan for it. node-postgres
 * names a statement when a query carries a `name`: the pool handed to Kysely here gives one to the
 * texts precompiled queries have marked, and passes every other query on as it came.
 *
 * A statement reading `*` fails with "cached plan must not change result type" once its table
 * has gained or lost a column (another process migrated the store meanwhile); the query is then
 * run again once under a new name, which PostgreSQL parses afresh.
 */
import type { PostgresCursor, PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';

/** Texts marked at most, across every store of the process: a bound on names, whatever marks them. */
const MARKED_TEXTS_MAXIMUM = 1_024;
/** PostgreSQL's code for "cached plan must not change result type". */
const FEATURE_NOT_SUPPORTED = '0A000';

interface MarkedText {
  /** Order of marking: a store prepares the first `maximum` texts marked. */
  index: number;
  /** Raised when a prepared form went stale, so the next run prepares it under a new name. */
  generation: number;
}

const markedTexts = new Map<string, MarkedText>();

/** Marks a query text to be prepared wherever a store prepares statements; only texts the code fixes, never one built from input, so they stay few. */
export function markForPreparing(text: string): void {
  if (markedTexts.has(text) || markedTexts.size >= MARKED_TEXTS_MAXIMUM) return;
  markedTexts.set(text, { index: markedTexts.size, generation: 0 });
}

function isStalePlan(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === FEATURE_NOT_SUPPORTED;
}

/** A pooled connection whose marked queries run as named statements. */
class PreparingClient implements PostgresPoolClient {
  constructor(
    private readonly client: pg.PoolClient,
    private readonly maximum: number,
  ) {}

  query<R>(text: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(textOrCursor: string | PostgresCursor<R>, parameters?: readonly unknown[]): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // A cursor (a result read a batch at a time) goes through as it came.
    if (typeof textOrCursor !== 'string')
      return this.client.query(textOrCursor as unknown as pg.Submittable) as unknown as PostgresCursor<R>;
    const values = (parameters ?? []) as unknown[];
    const marked = markedTexts.get(textOrCursor);
    if (marked === undefined || marked.index >= this.maximum)
      return this.client.query(textOrCursor, values) as unknown as Promise<PostgresQueryResult<R>>;
    return this.named(textOrCursor, values, marked);
  }

  private async named<R>(text: string, values: unknown[], marked: MarkedText): Promise<PostgresQueryResult<R>> {
    const run = () =>
      this.client.query({ name: `merino_${marked.index}_${marked.generation}`, text, values }) as unknown as Promise<
        PostgresQueryResult<R>
      >;
    const generation = marked.generation;
    try {
      return await run();
    } catch (error) {
      if (!isStalePlan(error)) throw error;
      // Another connection may have moved it on already; one move serves them all.
      if (marked.generation === generation) marked.generation += 1;
      return await run();
    }
  }

  release(): void {
    this.client.release();
  }
}

/** Kysely's pool over node-postgres's, preparing the first `maximum` marked texts on each connection (0 prepares none). */
export function preparingPool(pool: pg.Pool, maximum: number): PostgresPool {
  // One wrapper a connection, kept as long as the connection: Kysely keeps its own per client it is
  // given, so a fresh wrapper at every checkout would have it build a new one for every query.
  const wrappers = new WeakMap<pg.PoolClient, PreparingClient>();
  return {
    async connect() {
      const client = await pool.connect();
      let wrapper = wrappers.get(client);
      if (wrapper === undefined) {
        wrapper = new PreparingClient(client, maximum);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
