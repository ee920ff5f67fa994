// Vitest global setup: gives every test file the admin URL of a PostgreSQL server, starting
// a throw-away cluster for the run unless MERINO_TEST_POSTGRES_URL points at an existing one.
import type { TestProject } from 'vitest/node';
import { compileSource } from './compiled-source.js';
import { startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of a server where tests may create and drop their own databases. */
    postgresAdminUrl: string;
    /** `src/main.ts` compiled to JavaScript, for tests that start Merino as a child process. */
    compiledMain: string;
  }
}

const EXTERNAL_SERVER_VARIABLE = 'MERINO_TEST_POSTGRES_URL';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const compiled = await compileSource();
  project.provide('compiledMain', compiled.main);
  const externalAdminUrl = process.env[EXTERNAL_SERVER_VARIABLE]?.trim();
  if (externalAdminUrl) {
    // Someone else owns this server, so there is nothing for teardown to stop.
    project.provide('postgresAdminUrl', externalAdminUrl);
    return () => compiled.remove();
  }

  const cluster = await startPostgresCluster();
  project.provide('postgresAdminUrl', cluster.adminUrl);
  return async () => {
    await cluster.stop();
    await compiled.remove();
  };
}
