/**
 * Prepared statements kept by SQL text on the one SQLite connection. Kysely's SQLite driver calls
 * `prepare` for every query it runs, and preparing was a tenth of the server's CPU time under
 * load; the same few statements come back on every request, so each is prepared once and reused.
 * The cache holds at most `capacity` statements and forgets the least recently used past that, so
 * a stream of distinct texts (a query with a varying number of parameters, say) cannot grow it
 * without end. better-sqlite3 prepares a cached statement again by itself when the schema changes
 * (a migration), and a statement still being iterated is never handed out twice: such a caller
 * gets a fresh one.
 */
import type SqliteDatabase from 'better-sqlite3';

type Statement = SqliteDatabase.Statement;

/** Makes `connection.prepare` answer from a bounded cache; answers the connection itself. */
export function cacheStatements(connection: SqliteDatabase.Database, capacity: number): SqliteDatabase.Database {
  if (capacity <= 0) return connection;
  const prepare = connection.prepare.bind(connection) as (source: string) => Statement;
  // A Map iterates in insertion order: re-inserting on every hit keeps the least recently used first.
  const statements = new Map<string, Statement>();
  const cachedPrepare = (source: string): Statement => {
    const cached = statements.get(source);
    if (cached !== undefined && !cached.busy) {
      statements.delete(source);
      statements.set(source, cached);
      return cached;
    }
    const statement = prepare(source);
    if (cached === undefined) {
      statements.set(source, statement);
      if (statements.size > capacity) {
        const oldest = statements.keys().next();
        if (oldest.done !== true) statements.delete(oldest.value);
      }
    }
    return statement;
  };
  connection.prepare = cachedPrepare as typeof connection.prepare;
  return connection;
}
