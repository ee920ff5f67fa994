/**
 * Migration 0060: binds each LTI 1.3 login state to the browser that started the login. The
 * state keeps the SHA-256 of a secret only that browser holds (in a short-lived cookie, or in the
 * platform's storage through the LTI postMessage API when it names `lti_storage_target`), and the
 * name of that storage frame. States written before have neither and can no longer be launched;
 * they expire within LTI_LOGIN_STATE_SECONDS anyway.
 */
import type { Kysely, Migration } from 'kysely';

export function ltiLoginBindingMigration(): Migration {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('lti_login_states').addColumn('browser_secret_hash', 'text').execute();
      await db.schema.alterTable('lti_login_states').addColumn('storage_target', 'text').execute();
    },
  };
}
