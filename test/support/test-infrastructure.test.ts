// Proves the shared test infrastructure keeps its promises: every postgres test gets a
// real, private, disposable database, and every sqlite test a private, disposable folder.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from './test-databases.js';

const createdDatabases: TestDatabase[] = [];
const openClients: pg.Client[] = [];

async function freshDatabase(dialect: TestDatabase['dialect']): Promise<TestDatabase> {
  const database = await createTestDatabase(dialect);
  createdDatabases.push(database);
  return database;
}

async function connect(databaseUrl: string | undefined): Promise<pg.Client> {
  expect(databaseUrl).toBeDefined();
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 });
  // A forced DROP DATABASE kills this session; without a listener that would crash the worker.
  client.on('error', () => {});
  await client.connect();
  openClients.push(client);
  return client;
}

afterEach(async () => {
  await Promise.allSettled(openClients.splice(0).map((client) => client.end()));
  await Promise.all(createdDatabases.splice(0).map((database) => database.drop()));
});

describe('a postgres test database', () => {
  it('accepts a connection and round-trips rows through create table, insert and select', async () => {
    const database = await freshDatabase('postgres');
    expect(database.databaseUrl).toMatch(/^postgres:\/\/merino@127\.0\.0\.1:\d+\/merino_test_[0-9a-f]+$/);
    const client = await connect(database.databaseUrl);

    await client.query('create table notes (id integer primary key, body text not null)');
    await client.query('insert into notes (id, body) values ($1, $2), ($3, $4)', [1, 'first', 2, 'second']);
    const result = await client.query<{ id: number; body: string }>('select id, body from notes order by id');

    expect(result.rows).toEqual([
      { id: 1, body: 'first' },
      { id: 2, body: 'second' },
    ]);
  });

  it('is isolated from another test database: a table created in one is not visible in the other', async () => {
    const first = await freshDatabase('postgres');
    const second = await freshDatabase('postgres');
    expect(first.databaseUrl).not.toBe(second.databaseUrl);

    const firstClient = await connect(first.databaseUrl);
    const secondClient = await connect(second.databaseUrl);
    await firstClient.query('create table only_in_first (id integer)');

    const lookup = "select to_regclass('public.only_in_first') is not null as present";
    expect((await firstClient.query<{ present: boolean }>(lookup)).rows[0]?.present).toBe(true);
    expect((await secondClient.query<{ present: boolean }>(lookup)).rows[0]?.present).toBe(false);
  });

  it('is gone after drop(), so connecting to it afterwards fails', async () => {
    const database = await freshDatabase('postgres');
    const client = await connect(database.databaseUrl);
    await client.end();

    await database.drop();

    await expect(connect(database.databaseUrl)).rejects.toMatchObject({ code: '3D000' }); // invalid_catalog_name
  });

  it('can be dropped while a session is still connected to it', async () => {
    const database = await freshDatabase('postgres');
    await connect(database.databaseUrl);

    await expect(database.drop()).resolves.toBeUndefined();
    await expect(connect(database.databaseUrl)).rejects.toMatchObject({ code: '3D000' });
  });

  it('has its own empty data directory that drop() removes', async () => {
    const database = await freshDatabase('postgres');
    expect(await readdir(database.dataDirectory)).toEqual([]);

    await database.drop();

    expect(existsSync(database.dataDirectory)).toBe(false);
  });
});

describe('a sqlite test database', () => {
  it('has no database URL and an existing, empty data directory of its own', async () => {
    const first = await freshDatabase('sqlite');
    const second = await freshDatabase('sqlite');

    expect(first.databaseUrl).toBeUndefined();
    expect(existsSync(first.dataDirectory)).toBe(true);
    expect(await readdir(first.dataDirectory)).toEqual([]);
    expect(first.dataDirectory).not.toBe(second.dataDirectory);
  });

  it('has its data directory removed by drop()', async () => {
    const database = await freshDatabase('sqlite');

    await database.drop();

    expect(existsSync(database.dataDirectory)).toBe(false);
  });
});
