/**
 * `merino backup --to <file>`: on SQLite, a consistent copy of the database made while the server
 * runs (SQLite's VACUUM INTO, which reads one snapshot and blocks no writer in WAL mode); on
 * PostgreSQL, the pg_dump command to run, with the connection's host, port, user and database but
 * never its password. The store is left as it is (not migrated), so a backup taken before an
 * upgrade is of the old schema.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { SECRET_KEY_FILE_NAME } from '../secrets/secret-box.js';
import { requiredOption, type AdminCommand } from './admin-command.js';
import type { CommandSession } from './command-session.js';

async function backUpSqlite(session: CommandSession, target: string): Promise<void> {
  if (existsSync(target)) throw new Error(`${target} already exists; name a new file, so no earlier backup is overwritten.`);
  await sql`vacuum into ${target}`.execute(session.store.db);
  session.print(`Backed up the SQLite database to ${target}.`);
  session.print(
    `Keep ${path.join(session.settings.dataDirectory, SECRET_KEY_FILE_NAME)} with it (it decrypts the stored provider keys), ` +
      `and with the local storage the data folder's uploaded files as well (docs/command-line.md).`,
  );
}

/** The pg_dump command line for DATABASE_URL, without its password; the password goes in PGPASSWORD or ~/.pgpass. */
function pgDumpGuidance(session: CommandSession, target: string): void {
  const url = new URL(session.settings.databaseUrl!);
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || 'postgres';
  const user = url.username === '' ? undefined : decodeURIComponent(url.username);
  const command = [
    'pg_dump',
    `--host=${url.hostname}`,
    `--port=${url.port || '5432'}`,
    ...(user === undefined ? [] : [`--username=${user}`]),
    `--dbname=${database}`,
    '--format=custom',
    `--file=${target}`,
  ];
  session.print('The store is PostgreSQL: back it up with pg_dump, which takes a consistent snapshot while Merino runs:');
  session.print(`  ${command.join(' ')}`);
  session.print('Give the password through PGPASSWORD or ~/.pgpass (it is not shown here); restore with pg_restore.');
  session.print('Keep MERINO_SECRET_KEY as well: without it the stored provider keys cannot be decrypted.');
}

export const backupCommand: AdminCommand = {
  name: 'backup',
  summary: 'back up the SQLite database to a new file while the server runs, or print the pg_dump command for PostgreSQL',
  options: {
    to: { type: 'string', value: '<file>', description: 'the backup file to create (it must not exist yet)', required: true },
  },
  migrateStore: false,
  async run(session, commandLine) {
    const target = path.resolve(requiredOption(commandLine, 'to'));
    if (session.store.dialect === 'postgres') pgDumpGuidance(session, target);
    else await backUpSqlite(session, target);
    return 0;
  },
};
