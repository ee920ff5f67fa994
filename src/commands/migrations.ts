/**
 * `merino migrations`: which schema migrations the store has applied and which are pending,
 * without applying any (the server applies them at its next start). Exit status 0 either way:
 * pending migrations are a state, not a failure.
 */
import { migrationStates } from '../store/migration-status.js';
import type { AdminCommand } from './admin-command.js';

export const migrationsCommand: AdminCommand = {
  name: 'migrations',
  summary: 'list the applied and pending schema migrations, applying none',
  options: {},
  migrateStore: false,
  async run(session) {
    const states = await migrationStates(session.store.db, session.store.dialect);
    const pending = states.filter((state) => state.appliedAt === undefined);
    for (const state of states) {
      session.print(
        `${state.appliedAt === undefined ? 'pending' : 'applied'}  ${state.name}${state.appliedAt === undefined ? '' : `  ${state.appliedAt.toISOString()}`}`,
      );
    }
    session.print(
      `${states.length - pending.length} applied, ${pending.length} pending (${session.store.dialect})${pending.length > 0 ? '; the server applies them when it starts.' : '.'}`,
    );
    return 0;
  },
};
