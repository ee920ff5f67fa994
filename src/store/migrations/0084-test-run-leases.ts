/**
 * Migration 0084: which process runs a test run, and until when it has promised to renew that
 * claim (`lease_owner`, `lease_expires_at`, docs/assistant-tests.md "Runs cut short"). A run whose
 * process died (`kill -9`, a lost machine) stops renewing, and whoever looks next marks it
 * `interrupted`, its finished results kept, so it no longer stays `running` for ever nor counts
 * against TEST_RUNS_RUNNING_PER_ASSISTANT_MAX. Runs already running when this migration ran have
 * no lease and count as lapsed. The index on `status` lets the sweep read only running runs.
 */
import type { Kysely, Migration } from 'kysely';

export function testRunLeasesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('assistant_test_runs').addColumn('lease_owner', 'text').execute();
      await db.schema.alterTable('assistant_test_runs').addColumn('lease_expires_at', 'text').execute();
      await db.schema.createIndex('assistant_test_runs_status_index').on('assistant_test_runs').column('status').execute();
    },
  };
}
