/**
 * Proves SQLITE_CACHE_MB: the SQLite connection a server opens keeps a page cache of the set size
 * (SQLite reports a size set in KiB as a negative number), and of the default without the setting.
 */
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './support/test-server.js';

async function cacheSize(server: TestServer): Promise<number> {
  const result = await sql<{ cache_size: number }>`pragma cache_size`.execute(server.store.db);
  return result.rows[0]!.cache_size;
}

describe('the SQLite page cache', () => {
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('is 64 MiB by default', async () => {
    server = await startTestServer('sqlite');
    expect(await cacheSize(server)).toBe(-64 * 1024);
  });

  it('is the size SQLITE_CACHE_MB sets', async () => {
    server = await startTestServer('sqlite', { environment: { SQLITE_CACHE_MB: '3' } });
    expect(await cacheSize(server)).toBe(-3 * 1024);
  });
});
