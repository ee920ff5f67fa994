/**
 * The quota admission (src/usage/quota-admission.ts) over a real store on both dialects, on named
 * days: a month's usage counts whole, its settled days (kept per process) and its live ones
 * (yesterday and today, read at each admission) alike; the day limit counts only today; a new
 * month and a new day start empty, and the refusal names when the window resets.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../src/errors/app-error.js';
import type { OrganizationLimits } from '../src/organizations/organization-controls.js';
import { HotReadCache } from '../src/store/hot-read-cache.js';
import { insertOrganization } from '../src/store/organizations-repository.js';
import type { WindowSums } from '../src/store/quota-repository.js';
import { openStore, type Store } from '../src/store/store.js';
import { addDailyUsage } from '../src/store/usage-daily-repository.js';
import { QuotaAdmission } from '../src/usage/quota-admission.js';
import { quotaWindows } from '../src/usage/quota-windows.js';
import { possiblyUnset } from './support/possibly-unset.js';
import { createTestDatabase, TEST_DIALECTS, type TestDatabase } from './support/test-databases.js';

const USER = 7;
const ASSISTANT = 9;

describe('quota windows', () => {
  it('splits a month into settled days and live days, and resets at the next month and day', () => {
    expect(quotaWindows(new Date('2026-03-15T10:00:00Z'))).toMatchObject({
      monthStart: '2026-03-01',
      settledTo: '2026-03-13',
      liveFrom: '2026-03-14',
      today: '2026-03-15',
      monthResetsAt: new Date('2026-04-01T00:00:00Z'),
      dayResetsAt: new Date('2026-03-16T00:00:00Z'),
    });
    expect(quotaWindows(new Date('2026-03-02T23:59:59Z'))).toMatchObject({ settledTo: undefined, liveFrom: '2026-03-01' });
    expect(quotaWindows(new Date('2026-12-31T12:00:00Z'))).toMatchObject({
      settledTo: '2026-12-29',
      monthResetsAt: new Date('2027-01-01T00:00:00Z'),
      dayResetsAt: new Date('2027-01-01T00:00:00Z'),
    });
  });
});

describe.each(TEST_DIALECTS)('quota admission on %s', (dialect) => {
  let database: TestDatabase;
  let store: Store;
  let organizationId: number;
  let limits: OrganizationLimits = {};
  let now = new Date('2026-03-15T10:00:00Z');

  const admission = () =>
    new QuotaAdmission({
      db: store.db,
      dialect,
      reservationMilliseconds: 60_000,
      limitsFor: async () => limits,
      assistantLimitFor: async () => undefined,
      onAssistantSpend: async () => undefined,
      settledSums: new HotReadCache<string, WindowSums>({ lifetimeMilliseconds: 60_000, entriesMaximum: 100 }),
      now: () => now,
    });
  const request = () => ({ organizationId, userId: USER, assistantId: ASSISTANT, requestId: null });
  const usage = (day: string, tokens: number) => ({
    day,
    organization_id: organizationId,
    user_id: USER,
    assistant_id: ASSISTANT,
    model: 'm',
    requests: 1,
    prompt_tokens: tokens,
    completion_tokens: 0,
    cost_micro_usd: 0,
  });

  async function refusalOf(quotas: QuotaAdmission): Promise<AppError> {
    const error = await quotas.admit(request()).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    store = await openStore({ databaseUrl: database.databaseUrl, dataDirectory: database.dataDirectory, poolSize: 2 });
    organizationId = await insertOrganization(store.db, 'quota-windows', 'Quota windows');
    // February, two settled days of March, yesterday and today: 1 + 10 + 100 + 1,000 + 10,000 tokens.
    await addDailyUsage(store.db, [
      usage('2026-02-28', 1),
      usage('2026-03-01', 10),
      usage('2026-03-13', 100),
      usage('2026-03-14', 1_000),
      usage('2026-03-15', 10_000),
    ]);
  });

  afterAll(async () => {
    await possiblyUnset(store)?.close();
    await possiblyUnset(database)?.drop();
  });

  it('counts the settled and the live days of the month, and not the month before', async () => {
    const quotas = admission();
    limits = { tokens_per_month: 11_110 };
    const refused = await refusalOf(quotas);
    expect(refused.code).toBe('quota_exceeded');
    expect(refused.details).toMatchObject({
      limit: 'tokens_per_month',
      used: 11_110,
      reason: 'exhausted',
      resets_at: '2026-04-01T00:00:00.000Z',
    });
    limits = { tokens_per_month: 11_111 };
    // The settled days come from the cache now, and the live ones are read again: still 11,110 used.
    const reservation = await quotas.admit(request());
    expect(reservation).toBeTypeOf('number');
    await quotas.release(reservation as number);
  });

  it("counts only today's tokens for the day limit, and a new month or day starts empty", async () => {
    limits = { tokens_per_user_per_day: 10_000 };
    const refused = await refusalOf(admission());
    expect(refused.details).toMatchObject({ limit: 'tokens_per_user_per_day', used: 10_000, resets_at: '2026-03-16T00:00:00.000Z' });
    now = new Date('2026-03-16T00:00:01Z');
    const nextDay = await admission().admit(request());
    expect(nextDay).toBeTypeOf('number');
    limits = { tokens_per_month: 1 };
    now = new Date('2026-04-01T00:00:01Z');
    expect(await admission().admit(request())).toBeTypeOf('number');
  });
});
