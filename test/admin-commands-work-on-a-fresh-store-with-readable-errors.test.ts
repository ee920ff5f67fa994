// Proves that `merino <command>`, run as a real child process against a fresh data folder on each test store, does
// its work through the services (organizations, users, roles, one-time passwords, API keys, LAMB imports), prints
// usage and migration status, backs SQLite up online (and gives pg_dump guidance without the password on
// PostgreSQL), answers --help, exits 2 with a readable usage error and 1 with a readable failure (never a stack
// trace), and prints an API key once, on standard output only, storing nothing but its hash.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPassword } from '../src/auth/passwords.js';
import { hashToken } from '../src/auth/tokens.js';
import { insertUsageLogs } from '../src/store/usage-logs-repository.js';
import { rollUpUsage } from '../src/usage/usage-roll-up.js';
import { openStore, type Store } from '../src/store/store.js';
import { runMerino, type CommandResult } from './support/command-line.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';

const COMMANDS = [
  'create-organization',
  'create-user',
  'set-role',
  'reset-password',
  'create-api-key',
  'usage',
  'backup',
  'migrations',
  'import-lamb-export',
];
const PASSWORD = 'a password long enough';
const STACK_FRAME = /\n\s+at /;
const SLOW = { timeout: 180_000 };

/** A failure in words: the status, a line naming the command, and no stack frame. */
function expectReadableFailure(result: CommandResult, status: 1 | 2, words: RegExp): void {
  expect(result.status, result.stderr).toBe(status);
  expect(result.stderr).toMatch(new RegExp(`^merino [a-z-]+: `));
  expect(result.stderr).toMatch(words);
  expect(result.stderr).not.toMatch(STACK_FRAME);
  if (status === 2) expect(result.stderr).toContain('usage: merino ');
}

/** The one-time password a command printed, or a failed expectation. */
function oneTimePasswordIn(output: string): string {
  const match = /One-time password \(shown only now[^)]*\): (\S+)/.exec(output);
  expect(match, output).not.toBeNull();
  return match![1]!;
}

describe('merino help and --help', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
  });

  afterAll(async () => {
    await database.drop();
  });

  it('lists every command, and each answers --help with its usage and options and status 0, opening no store', SLOW, async () => {
    const list = await runMerino(database, ['help']);
    expect(list.status).toBe(0);
    for (const command of COMMANDS) expect(list.stdout).toContain(`  ${command} `);
    const helps = await Promise.all(COMMANDS.map((command) => runMerino(database, [command, '--help'])));
    helps.forEach((help, index) => {
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^usage: merino ${COMMANDS[index]}`));
      expect(help.stdout).toContain('--help');
    });
    // --help is answered before any store is opened: the data folder stays empty.
    expect(await readdir(database.dataDirectory)).toEqual([]);
  });
});

describe.each(TEST_DIALECTS)('merino <command> on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let assistantId: number;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
  });

  /** The test's own connection, opened once the command line has made the store (the first test needs it untouched). */
  const opened: Store[] = [];

  afterAll(async () => {
    for (const each of opened) await each.close();
    await database.drop();
  });

  it('reports every migration pending on a fresh store, applying none', SLOW, async () => {
    const result = await runMerino(database, ['migrations']);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('pending  0001-foundation');
    expect(result.stdout).toMatch(new RegExp(`0 applied, \\d+ pending \\(${dialect}\\)`));
    expect(result.stdout).not.toContain('applied  ');
  });

  it('creates an organization, and refuses a taken slug (1) and a missing or malformed option (2) in words', SLOW, async () => {
    const created = await runMerino(database, ['create-organization', '--name', 'Faculty of Arts', '--slug', 'arts']);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^Created organization arts \(id \d+\): Faculty of Arts\n$/);
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
    opened.push(store);
    const row = await store.db.selectFrom('organizations').selectAll().where('slug', '=', 'arts').executeTakeFirstOrThrow();
    expect(row.name).toBe('Faculty of Arts');
    const audit = await store.db.selectFrom('audit_log').selectAll().where('action', '=', 'organization.create').executeTakeFirstOrThrow();
    expect(audit.request_id).toBe('cli:create-organization');

    expectReadableFailure(await runMerino(database, ['create-organization', '--name', 'Again', '--slug', 'arts']), 1, /already exists/);
    expectReadableFailure(await runMerino(database, ['create-organization', '--name', 'No slug']), 2, /--slug is required/);
    expectReadableFailure(
      await runMerino(database, ['create-organization', '--name', 'X', '--slug', 'Not A Slug']),
      2,
      /--slug must match/,
    );
    expectReadableFailure(
      await runMerino(database, ['create-organization', '--name', 'X', '--slug', 'ok', '--colour', 'red']),
      2,
      /Unknown option '--colour'/,
    );
  });

  it(
    'creates users with a one-time password or one from standard input, and refuses an unknown organization (1) and role (2)',
    SLOW,
    async () => {
      const created = await runMerino(database, [
        'create-user',
        '--email',
        'teacher@arts.test',
        '--organization',
        'arts',
        '--role',
        'creator',
        '--name',
        'Teacher',
      ]);
      expect(created.status, created.stderr).toBe(0);
      expect(created.stdout).toMatch(/^Created user teacher@arts\.test \(id \d+\) in arts as creator\./);
      const oneTime = oneTimePasswordIn(created.stdout);
      const teacher = await store.db.selectFrom('users').selectAll().where('email', '=', 'teacher@arts.test').executeTakeFirstOrThrow();
      expect(teacher.must_change_password).toBe(1);
      expect(await verifyPassword(oneTime, teacher.password_hash ?? '')).toBe(true);

      const piped = await runMerino(
        database,
        ['create-user', '--email', 'learner@arts.test', '--organization', 'arts', '--password-stdin'],
        {
          input: `${PASSWORD}\n`,
        },
      );
      expect(piped.status, piped.stderr).toBe(0);
      expect(piped.stdout).toContain('as learner.');
      expect(piped.stdout).not.toContain('One-time password');
      const learner = await store.db.selectFrom('users').selectAll().where('email', '=', 'learner@arts.test').executeTakeFirstOrThrow();
      expect(learner.must_change_password).toBe(0);
      expect(await verifyPassword(PASSWORD, learner.password_hash ?? '')).toBe(true);

      expectReadableFailure(
        await runMerino(database, ['create-user', '--email', 'someone@arts.test', '--organization', 'no-such-faculty']),
        1,
        /There is no organization "no-such-faculty"/,
      );
      expectReadableFailure(
        await runMerino(database, ['create-user', '--email', 'someone@arts.test', '--organization', 'arts', '--role', 'dean']),
        2,
        /--role must be equal to one of the allowed values: admin, creator, learner/,
      );
      expectReadableFailure(
        await runMerino(database, ['create-user', '--email', 'teacher@arts.test', '--organization', 'arts']),
        1,
        /email_taken/,
      );
    },
  );

  it('sets a role and resets a password, and refuses an unknown user (1) and a missing role (2)', SLOW, async () => {
    const promoted = await runMerino(database, ['set-role', '--user', 'learner@arts.test', '--role', 'admin']);
    expect(promoted.status, promoted.stderr).toBe(0);
    expect(promoted.stdout).toMatch(/^learner@arts\.test \(id \d+\) is now admin/);
    const role = await store.db
      .selectFrom('organization_roles')
      .innerJoin('users', 'users.id', 'organization_roles.user_id')
      .select('organization_roles.role')
      .where('users.email', '=', 'learner@arts.test')
      .executeTakeFirstOrThrow();
    expect(role.role).toBe('admin');

    const reset = await runMerino(database, ['reset-password', '--user', 'learner@arts.test']);
    expect(reset.status, reset.stderr).toBe(0);
    const oneTime = oneTimePasswordIn(reset.stdout);
    const learner = await store.db.selectFrom('users').selectAll().where('email', '=', 'learner@arts.test').executeTakeFirstOrThrow();
    expect(learner.must_change_password).toBe(1);
    expect(await verifyPassword(oneTime, learner.password_hash ?? '')).toBe(true);
    expect(await verifyPassword(PASSWORD, learner.password_hash ?? '')).toBe(false);

    expectReadableFailure(
      await runMerino(database, ['set-role', '--user', 'nobody@arts.test', '--role', 'admin']),
      1,
      /There is no user "nobody@arts\.test"/,
    );
    expectReadableFailure(await runMerino(database, ['set-role', '--user', 'learner@arts.test']), 2, /--role is required/);
    expectReadableFailure(await runMerino(database, ['reset-password', '--user', 'nobody@arts.test']), 1, /There is no user/);
  });

  it('prints an API key once, on standard output only, and stores only its hash', SLOW, async () => {
    const result = await runMerino(database, ['create-api-key', '--user', 'teacher@arts.test', '--name', 'grading script']);
    expect(result.status, result.stderr).toBe(0);
    const key = /The key is shown only now:\n(\S+)\n$/.exec(result.stdout)?.[1];
    expect(key, result.stdout).toBeDefined();
    expect(result.stdout.split(key!).length - 1).toBe(1);
    expect(result.stderr).not.toContain(key!);
    const stored = await store.db.selectFrom('api_keys').selectAll().where('name', '=', 'grading script').executeTakeFirstOrThrow();
    expect(stored.key_hash).toBe(hashToken(key!));
    const audit = await store.db.selectFrom('audit_log').select('details').where('action', '=', 'api_key.create').execute();
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(key!);
    if (dialect === 'sqlite') {
      // Nothing in the data folder (database, write-ahead log, key file) holds the key itself.
      for (const file of await readdir(database.dataDirectory, { recursive: true, withFileTypes: true })) {
        if (!file.isFile()) continue;
        expect((await readFile(path.join(file.parentPath, file.name))).includes(Buffer.from(key!)), file.name).toBe(false);
      }
    }
    expectReadableFailure(await runMerino(database, ['create-api-key', '--user', 'ghost@arts.test', '--name', 'x']), 1, /There is no user/);
    expectReadableFailure(await runMerino(database, ['create-api-key', '--user', 'teacher@arts.test']), 2, /--name is required/);
  });

  it('imports LAMB export files as the owner, reporting a broken one in words and exiting 1', SLOW, async () => {
    const good = path.join(database.dataDirectory, 'tutor-export.json');
    const broken = path.join(database.dataDirectory, 'broken-export.json');
    await writeFile(
      good,
      JSON.stringify({
        name: 'Imported tutor',
        description: 'Answers from the notes',
        system_prompt: 'Be kind.',
        prompt_template: '{user_input}',
        metadata: JSON.stringify({
          connector: 'bypass',
          llm: 'simple-bypass',
          prompt_processor: 'simple_augment',
          rag_processor: 'no_rag',
        }),
        RAG_collections: '',
        RAG_Top_k: 3,
      }),
    );
    await writeFile(broken, '{"not": "an export"}');
    const one = await runMerino(database, ['import-lamb-export', '--owner', 'teacher@arts.test', good]);
    expect(one.status, one.stderr).toBe(0);
    const imported = /imported as assistant (\d+) "Imported tutor"/.exec(one.stdout);
    expect(imported, one.stdout).not.toBeNull();
    assistantId = Number(imported![1]);
    const row = await store.db
      .selectFrom('assistants')
      .innerJoin('users', 'users.id', 'assistants.owner_id')
      .select(['assistants.name', 'users.email'])
      .where('assistants.id', '=', assistantId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ name: 'Imported tutor', email: 'teacher@arts.test' });

    const mixed = await runMerino(database, [
      'import-lamb-export',
      '--owner',
      'teacher@arts.test',
      good,
      broken,
      path.join(database.dataDirectory, 'missing.json'),
    ]);
    expect(mixed.status).toBe(1);
    expect(mixed.stdout).toContain('1 imported, 2 failed.');
    expect(mixed.stderr).toContain(`${broken}: The import document has no assistant name`);
    expect(mixed.stderr).toContain('missing.json: no such file.');
    expect(mixed.stderr).not.toMatch(STACK_FRAME);
    expectReadableFailure(await runMerino(database, ['import-lamb-export', '--owner', 'teacher@arts.test']), 2, /Missing <files…>/);
    expectReadableFailure(await runMerino(database, ['import-lamb-export', '--owner', 'ghost@arts.test', good]), 1, /There is no user/);
  });

  it('prints usage per day and per user for a period, and refuses a malformed day (2) and an unknown organization (1)', SLOW, async () => {
    const organization = await store.db.selectFrom('organizations').select('id').where('slug', '=', 'arts').executeTakeFirstOrThrow();
    const users = await store.db.selectFrom('users').select(['id', 'email']).execute();
    const userId = (email: string): number => users.find((user) => user.email === email)!.id;
    const [learner, teacher] = [{ id: userId('learner@arts.test') }, { id: userId('teacher@arts.test') }];
    const row = (day: string, userId: number, prompt: number, completion: number) => ({
      created_at: `${day}T10:00:00.000Z`,
      organization_id: organization.id,
      user_id: userId,
      assistant_id: assistantId,
      connector: 'bypass',
      model: 'simple-bypass',
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: prompt + completion,
      duration_ms: 5,
      outcome: 'completed',
      request_id: null,
    });
    // Written through a connection of its own, closed before the command runs, as another server process would write them.
    const writer = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 1 });
    const rows = [
      row('2027-03-01', teacher.id, 100, 10),
      row('2027-03-01', learner.id, 50, 5),
      row('2027-03-02', teacher.id, 7, 3),
      row('2027-03-05', teacher.id, 1000, 1000),
    ];
    // As the server's run-record writer does: the usage rows and their roll-ups in one transaction.
    await writer.db.transaction().execute(async (transaction) => {
      await insertUsageLogs(transaction, rows);
      await rollUpUsage(transaction, rows);
    });
    await writer.close();
    const byDay = await runMerino(database, ['usage', '--from', '2027-03-01', '--to', '2027-03-02']);
    expect(byDay.status, byDay.stderr).toBe(0);
    const lines = byDay.stdout.trim().split('\n');
    expect(lines[0]).toBe('Usage from 2027-03-01 to 2027-03-02, all organizations:');
    expect(lines[1]!.split(/\s{2,}/)).toEqual(['day', 'requests', 'prompt tokens', 'completion tokens', 'cost']);
    expect(lines, byDay.stdout).toHaveLength(6);
    // simple-bypass has no price: its tokens are counted at a cost of 0.
    expect(lines[2]!.trim().split(/\s+/)).toEqual(['2027-03-01', '2', '150', '15', '$0.000000']);
    expect(lines[3]!.trim().split(/\s+/)).toEqual(['2027-03-02', '1', '7', '3', '$0.000000']);
    expect(lines.at(-1)!.trim().split(/\s+/)).toEqual(['total', '3', '157', '18', '$0.000000']);

    const byUser = await runMerino(database, [
      'usage',
      '--from',
      '2027-03-01',
      '--to',
      '2027-03-31',
      '--by',
      'user',
      '--organization',
      'arts',
    ]);
    expect(byUser.status, byUser.stderr).toBe(0);
    expect(byUser.stdout).toContain(', organization arts:');
    expect(byUser.stdout).toMatch(/learner@arts\.test\s+1\s+50\s+5\s+\$0\.000000\n/);
    expect(byUser.stdout).toMatch(/teacher@arts\.test\s+3\s+1107\s+1013\s+\$0\.000000\n/);

    expectReadableFailure(
      await runMerino(database, ['usage', '--from', '2027-02-30', '--to', '2027-03-02']),
      2,
      /--from must be a day written YYYY-MM-DD/,
    );
    expectReadableFailure(
      await runMerino(database, ['usage', '--from', '2027-03-01', '--to', '2027-03-02', '--by', 'course']),
      2,
      /--by must be one of day, user, assistant, model/,
    );
    expectReadableFailure(
      await runMerino(database, ['usage', '--from', '2027-03-01', '--to', '2027-03-02', '--organization', 'law']),
      1,
      /There is no organization "law"/,
    );
  });

  it(
    'backs the store up (SQLite) or says how with pg_dump without the password (PostgreSQL), and reports every migration applied',
    SLOW,
    async () => {
      const target = path.join(database.dataDirectory, 'merino-backup.sqlite');
      if (dialect === 'sqlite') {
        const result = await runMerino(database, ['backup', '--to', target]);
        expect(result.status, result.stderr).toBe(0);
        expect(result.stdout).toContain(`Backed up the SQLite database to ${target}.`);
        const copy = new SqliteDatabase(target, { readonly: true });
        try {
          const emails = copy.prepare('select email from users order by email').all() as { email: string }[];
          expect(emails.map((user) => user.email)).toEqual(['learner@arts.test', 'teacher@arts.test']);
        } finally {
          copy.close();
        }
        expectReadableFailure(await runMerino(database, ['backup', '--to', target]), 1, /already exists; name a new file/);
      } else {
        // The test server trusts every connection, so a password can be added to show that it is never printed.
        const url = new URL(database.databaseUrl!);
        if (url.password === '') url.password = 'never-printed-password';
        const result = await runMerino(database, ['backup', '--to', target], { environment: { DATABASE_URL: url.toString() } });
        expect(result.status, result.stderr).toBe(0);
        expect(result.stdout).toContain(
          `pg_dump --host=${url.hostname} --port=${url.port} --username=${url.username} --dbname=${url.pathname.slice(1)} --format=custom --file=${target}`,
        );
        expect(result.stdout).toContain('PGPASSWORD');
        expect(result.stdout + result.stderr).not.toContain(decodeURIComponent(url.password));
      }
      expectReadableFailure(await runMerino(database, ['backup']), 2, /--to is required/);
      const status = await runMerino(database, ['migrations']);
      expect(status.status, status.stderr).toBe(0);
      expect(status.stdout).toContain('applied  0001-foundation');
      expect(status.stdout).toMatch(/\d+ applied, 0 pending/);
    },
  );
});
