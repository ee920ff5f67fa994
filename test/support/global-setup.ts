// Vitest global setup: gives every test file the admin URL of a PostgreSQL server, starting
// a throw-away cluster for the run unless MERINO_TEST_POSTGRES_URL points at an existing one.
import type { TestProject } from 'vitest/node';
import { startPostgresCluster } from './postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of a server where tests may create and drop their own databases. */
    postgresAdminUrl: string;
  }
}

const EXTERNAL_SERVER_VARIABLE = 'MERINO_TEST_POSTGRES_URL';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const externalAdminUrl = process.env[EXTERNAL_SERVER_VARIABLE]?.trim();
  if (externalAdminUrl) {
    // Someone else owns this server, so there is nothing for teardown to stop.
    project.provide('postgresAdminUrl', externalAdminUrl);
    return async () => {};
  }

  const cluster = await startPostgresCluster();
  project.provide('postgresAdminUrl', cluster.adminUrl);
  return async () => {
    await cluster.stop();
  };
}
