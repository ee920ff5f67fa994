// Vitest global setup: gives every test file the admin URL of a PostgreSQL server, starting
// a throw-away cluster for the run unless MERINO_TEST_POSTGRES_URL points at an existing one.
import type { TestProject } from 'vitest/node';
import { compileSource } from './compiled-source.js';
import { createMigratedTemplates } from './migrated-templates.js';
import { startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of a server where tests may create and drop their own databases. */
    postgresAdminUrl: string;
    /** `src/main.ts` compiled to JavaScript, for tests that start Merino as a child process. */
    compiledMain: string;
    /** A migrated database on that server, copied by createTestDatabase(…, {migrated: true}). */
    postgresTemplateDatabase: string;
    /** A migrated SQLite file, copied likewise. */
    sqliteTemplateFile: string;
  }
}

const EXTERNAL_SERVER_VARIABLE = 'MERINO_TEST_POSTGRES_URL';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const compiled = await compileSource();
  project.provide('compiledMain', compiled.main);
  const externalAdminUrl = process.env[EXTERNAL_SERVER_VARIABLE]?.trim();
  // Someone else owns an external server, so teardown leaves it running.
  const cluster = externalAdminUrl ? undefined : await startPostgresCluster();
  const adminUrl = externalAdminUrl || cluster!.adminUrl;
  project.provide('postgresAdminUrl', adminUrl);
  const templates = await createMigratedTemplates(adminUrl);
  project.provide('postgresTemplateDatabase', templates.postgresDatabase);
  project.provide('sqliteTemplateFile', templates.sqliteFile);
  return async () => {
    await templates.remove();
    await cluster?.stop();
    await compiled.remove();
  };
}
