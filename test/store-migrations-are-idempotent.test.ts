/** Proves that migrations apply once, re-run as no-ops, and that processes starting together on one fresh store agree. */
import { afterEach, describe, expect, it } from 'vitest';
import { bootstrapAdmin } from '../src/auth/admin-bootstrap.js';
import { migrateStore, openStore } from '../src/store/store.js';
import { createTestDatabase, TEST_DIALECTS, TEST_PASSWORD_HASH_COST, type TestDatabase } from './support/test-databases.js';

const EXPECTED_TABLES = [
  'answer_feedback',
  'api_keys',
  'assistant_insights_daily',
  'assistant_insights_items',
  'assistant_insights_monthly_items',
  'assistant_quota_alerts',
  'assistant_quotas',
  'assistant_shares',
  'assistant_test_cases',
  'assistant_test_results',
  'assistant_test_runs',
  'assistants',
  'audit_log',
  'blob_chunks',
  'blobs',
  'chat_messages',
  'chat_run_events',
  'chat_runs',
  'chats',
  'files',
  'ingestion_jobs',
  'kb_chunk_embeddings',
  'kb_chunks',
  'kb_document_texts',
  'kb_documents',
  'kb_graph_entities',
  'kb_graph_mentions',
  'kb_graph_relations',
  'kb_postings',
  'knowledge_bases',
  'lti_consumers',
  'lti_launches',
  'lti_links',
  'lti_login_states',
  'lti_platforms',
  'lti_tool_keys',
  'lti_used_nonces',
  'lti_users',
  'mcp_servers',
  'mcp_sessions',
  'model_prices',
  'organization_roles',
  'organization_sign_ups',
  'organizations',
  'periodic_runs',
  'quota_reservations',
  'rate_limit_counters',
  'rubrics',
  'sessions',
  'template_tags',
  'templates',
  'traces',
  'usage_daily',
  'usage_daily_assistants',
  'usage_daily_models',
  'usage_logs',
  'usage_monthly',
  'usage_monthly_assistants',
  'usage_monthly_people',
  'usage_quarterly_people',
  'usage_weekly_people',
  'users',
  'web_crawls',
];

describe.each(TEST_DIALECTS)('the store on %s', (dialect) => {
  let database: TestDatabase | undefined;

  afterEach(async () => {
    await database?.drop();
    database = undefined;
  });

  function optionsFor(testDatabase: TestDatabase) {
    return { databaseUrl: testDatabase.databaseUrl, dataDirectory: testDatabase.dataDirectory, poolSize: 4 };
  }

  it('creates every table at first start and applies nothing at the next', async () => {
    database = await createTestDatabase(dialect);
    const first = await openStore(optionsFor(database));
    const names = (await first.db.introspection.getTables()).map((table) => table.name).filter((name) => !name.startsWith('kysely_'));
    // Migration 0094 replaced SQLite's shared FTS5 index (a virtual table with shadow tables) by kb_postings.
    expect(names.sort()).toEqual(EXPECTED_TABLES);
    expect(await migrateStore(first.db, first.dialect)).toEqual([]);
    await first.close();
    const second = await openStore(optionsFor(database));
    expect(await migrateStore(second.db, second.dialect)).toEqual([]);
    await second.close();
  });

  it('lets two processes start on one fresh store at once, migrating once and creating one admin', async () => {
    database = await createTestDatabase(dialect);
    const stores = await Promise.all([openStore(optionsFor(database)), openStore(optionsFor(database))]);
    const results = await Promise.all(
      stores.map((store) => bootstrapAdmin(store.db, 'first@merino.test', 'first-admin-password', TEST_PASSWORD_HASH_COST)),
    );
    expect(results.filter((result) => result.created)).toHaveLength(1);
    const users = await stores[0].db.selectFrom('users').select('email').execute();
    expect(users).toEqual([{ email: 'first@merino.test' }]);
    const organizations = await stores[0].db.selectFrom('organizations').select('slug').execute();
    expect(organizations).toEqual([{ slug: 'system' }]);
    await Promise.all(stores.map((store) => store.close()));
  });

  it('never creates a second admin once users exist', async () => {
    database = await createTestDatabase(dialect);
    const store = await openStore(optionsFor(database));
    expect((await bootstrapAdmin(store.db, 'one@merino.test', 'first-admin-password', TEST_PASSWORD_HASH_COST)).created).toBe(true);
    expect((await bootstrapAdmin(store.db, 'two@merino.test', 'other-admin-password', TEST_PASSWORD_HASH_COST)).created).toBe(false);
    expect(await store.db.selectFrom('users').select('email').execute()).toEqual([{ email: 'one@merino.test' }]);
    await store.close();
  });
});

describe('an unreachable PostgreSQL', () => {
  it('fails start-up with a clear message that never contains the password', async () => {
    const failure = openStore({
      databaseUrl: 'postgres://merino:very-secret-password@127.0.0.1:1/merino',
      dataDirectory: '/tmp',
      poolSize: 1,
    });
    await expect(failure).rejects.toThrow(/Cannot reach PostgreSQL at 127\.0\.0\.1:1\/merino/);
    await expect(failure).rejects.not.toThrow(/very-secret-password/);
  });
});
