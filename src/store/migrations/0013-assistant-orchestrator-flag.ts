/**
 * Migration 0013: whether an assistant is an orchestrator (a multi-tool assistant with at least
 * one enabled tool of type `assistant`), kept beside its metadata as `assistant_type` is, so the
 * list can filter orchestrators without parsing every row's JSON. Existing rows are read once here.
 */
import type { Kysely, Migration } from 'kysely';

interface ToolEntryShape {
  type?: unknown;
  enabled?: unknown;
}

/** The rule of metadata-normalizer.ts's isOrchestrator, frozen here so later changes to it cannot rewrite history. */
function wasOrchestrator(metadataJson: string): boolean {
  try {
    const metadata = JSON.parse(metadataJson) as { tools?: unknown };
    if (!Array.isArray(metadata.tools)) return false;
    return (metadata.tools as ToolEntryShape[]).some((entry) => entry.enabled === true && entry.type === 'assistant');
  } catch {
    return false;
  }
}

export function assistantOrchestratorFlagMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable('assistants')
        .addColumn('orchestrator', 'integer', (column) => column.notNull().defaultTo(0))
        .execute();
      const untyped = db as Kysely<{ assistants: { id: number; metadata: string; orchestrator: number } }>;
      const rows = await untyped.selectFrom('assistants').select(['id', 'metadata']).execute();
      const orchestratorIds = rows.filter((row) => wasOrchestrator(row.metadata)).map((row) => row.id);
      if (orchestratorIds.length > 0) {
        await untyped.updateTable('assistants').set({ orchestrator: 1 }).where('id', 'in', orchestratorIds).execute();
      }
    },
  };
}
