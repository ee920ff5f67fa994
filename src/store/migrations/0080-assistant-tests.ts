/**
 * Migration 0080: an assistant's test cases, their runs and each case's result in a run
 * (docs/assistant-tests.md), and `usage_logs.traffic`, which marks the model calls of test runs
 * ('test') apart from learners' traffic (null), so reports count them and insights can leave
 * them out. Turns, expectations, snapshots, sources and verdicts are JSON text, as elsewhere.
 */
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withIdColumn } from './id-column.js';

export function assistantTestsMigration(dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('usage_logs').addColumn('traffic', 'text').execute();

      await withIdColumn(db.schema.createTable('assistant_test_cases'), dialect)
        .addColumn('assistant_id', 'integer', (column) => column.notNull().references('assistants.id').onDelete('cascade'))
        .addColumn('name', 'text', (column) => column.notNull())
        .addColumn('kind', 'text', (column) => column.notNull())
        .addColumn('turns', 'text', (column) => column.notNull())
        .addColumn('expectations', 'text', (column) => column.notNull())
        .addColumn('created_by', 'integer', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('updated_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('assistant_test_cases_assistant_index')
        .on('assistant_test_cases')
        .columns(['assistant_id', 'id'])
        .execute();

      await withIdColumn(db.schema.createTable('assistant_test_runs'), dialect)
        .addColumn('assistant_id', 'integer', (column) => column.notNull().references('assistants.id').onDelete('cascade'))
        .addColumn('started_by', 'integer', (column) => column.notNull())
        .addColumn('snapshot_source', 'text', (column) => column.notNull())
        .addColumn('snapshot', 'text', (column) => column.notNull())
        .addColumn('case_ids', 'text', (column) => column.notNull())
        .addColumn('status', 'text', (column) => column.notNull())
        .addColumn('stop_requested', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('estimated_cost_micro_usd', 'integer', (column) => column.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (column) => column.notNull())
        .addColumn('finished_at', 'text')
        .execute();
      await db.schema
        .createIndex('assistant_test_runs_assistant_index')
        .on('assistant_test_runs')
        .columns(['assistant_id', 'id'])
        .execute();

      // No foreign key to the case: a result outlives its case, so an old run still reads whole.
      await withIdColumn(db.schema.createTable('assistant_test_results'), dialect)
        .addColumn('run_id', 'integer', (column) => column.notNull().references('assistant_test_runs.id').onDelete('cascade'))
        .addColumn('case_id', 'integer', (column) => column.notNull())
        .addColumn('case_name', 'text', (column) => column.notNull())
        .addColumn('verdict', 'text', (column) => column.notNull())
        .addColumn('answer', 'text', (column) => column.notNull())
        .addColumn('details', 'text', (column) => column.notNull())
        .addColumn('prompt_tokens', 'integer', (column) => column.notNull())
        .addColumn('completion_tokens', 'integer', (column) => column.notNull())
        .addColumn('cost_micro_usd', 'integer', (column) => column.notNull())
        .addColumn('duration_ms', 'integer', (column) => column.notNull())
        .addColumn('created_at', 'text', (column) => column.notNull())
        .execute();
      await db.schema
        .createIndex('assistant_test_results_run_index')
        .on('assistant_test_results')
        .columns(['run_id', 'case_id'])
        .unique()
        .execute();
    },
  };
}
