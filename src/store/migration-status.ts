/** Which migrations a store has applied and which are pending, read without applying any (Kysely's migrator only reads its table here). */
import { Migrator, type Kysely } from 'kysely';
import type { Dialect } from './dialect.js';
import { allMigrations } from './migrations/index.js';
import type { Database } from './schema.js';

export interface MigrationState {
  name: string;
  /** When it ran; undefined while it is pending. */
  appliedAt: Date | undefined;
}

export async function migrationStates(db: Kysely<Database>, dialect: Dialect): Promise<MigrationState[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => allMigrations(dialect) } });
  const migrations = await migrator.getMigrations();
  return migrations.map((migration) => ({ name: migration.name, appliedAt: migration.executedAt }));
}
