/** The two SQL dialects the store speaks, and which one a database handle speaks. */
import { PostgresAdapter, type QueryExecutor } from 'kysely';

export type Dialect = 'sqlite' | 'postgres';

/** The dialect of a database handle or a transaction on it. */
export function dialectOf(db: { getExecutor(): QueryExecutor }): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}
