/**
 * A store over a fresh test database for a describe block that speaks to the store directly,
 * without a server: opened before its tests, closed and its database dropped after them.
 */
import { afterAll, beforeAll } from 'vitest';
import { openStore, type Store } from '../../src/store/store.js';
import { possiblyUnset } from './possibly-unset.js';
import { createTestDatabase, type Dialect, type TestDatabase } from './test-databases.js';

export interface StoreSuite {
  database: TestDatabase;
  store: Store;
}

/** Registers the describe block's beforeAll and afterAll; the fields are set once beforeAll has run. */
export function storeSuite(dialect: Dialect): StoreSuite {
  const suite = {} as StoreSuite;
  beforeAll(async () => {
    suite.database = await createTestDatabase(dialect);
    suite.store = await openStore({ databaseUrl: suite.database.databaseUrl, dataDirectory: suite.database.dataDirectory, poolSize: 2 });
  });
  afterAll(async () => {
    await possiblyUnset(suite.store)?.close();
    await possiblyUnset(suite.database)?.drop();
  });
  return suite;
}
