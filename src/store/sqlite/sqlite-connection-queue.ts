/**
 * Kysely's SQLite driver, with its one connection handed to the waiting queries in turn. A process
 * has a single SQLite connection, so every query and every transaction waits for it. Kysely's own
 * mutex wakes every waiter at each release and lets them all race for it again: with 32 requests
 * waiting, one release ran 32 continuations to let one of them through, about a third of a second
 * of CPU in the gateway benchmark's multi-tool run. Here a release hands the connection to the
 * longest waiter alone, first come first served.
 */
import { SqliteDialect, SqliteDriver, type DatabaseConnection, type Driver, type SqliteDialectConfig } from 'kysely';

export class QueuedSqliteDriver extends SqliteDriver {
  readonly #waiting: (() => void)[] = [];
  #held = false;

  override async acquireConnection(): Promise<DatabaseConnection> {
    if (this.#held) await new Promise<void>((resolve) => this.#waiting.push(resolve));
    // A waiter woken by a release is handed the connection with `#held` still set, so no query
    // that arrives in between can take it first.
    this.#held = true;
    // Kysely's own mutex is never contended now: this queue lets one caller through at a time.
    return super.acquireConnection();
  }

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    const next = this.#waiting.shift();
    if (next === undefined) this.#held = false;
    else next();
  }
}

/** Kysely's SQLite dialect with the queued driver above. */
export class QueuedSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;

  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }

  override createDriver(): Driver {
    return new QueuedSqliteDriver(this.#config);
  }
}
