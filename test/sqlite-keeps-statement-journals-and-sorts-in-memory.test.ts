/**
 * Proves that the SQLite store keeps its temporary data (statement journals, sorts, the rows a
 * RETURNING clause gathers) in memory: with SQLite's default, temporary files, the chat's two-row
 * rate-limit upsert cost seven times as much on its own (docs/knowledge-bases.md, thirteenth
 * pass).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/store/store.js';

/** SQLite's number for `temp_store = MEMORY`. */
const TEMPORARY_STORE_MEMORY = 2;

describe('the SQLite store', () => {
  let store: Store;
  let folder: string;

  beforeAll(async () => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'merino-temp-store-'));
    store = await openStore({ databaseUrl: undefined, dataDirectory: folder, poolSize: 1, migrate: false });
  });

  afterAll(async () => {
    await store.close();
    fs.rmSync(folder, { recursive: true, force: true });
  });

  it('keeps temporary data in memory', async () => {
    const result = await sql<{ temp_store: number }>`pragma temp_store`.execute(store.db);
    expect(result.rows[0]!.temp_store).toBe(TEMPORARY_STORE_MEMORY);
  });
});
