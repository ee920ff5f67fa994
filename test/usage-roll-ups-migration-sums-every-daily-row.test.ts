/**
 * Migrations 0078, 0083 and 0086 on both dialects, over a store migrated to 0076 holding daily usage
 * written before the coarser roll-ups existed: usage_monthly and usage_daily_models then hold
 * exactly usage_daily's sums per month and per organization, day and model; the roll-ups by
 * assistant, by person and month and by person and week (its Monday, on each dialect's dates)
 * hold theirs, the roll-up by person and quarter sums its months; and usage_daily is kept as it was.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { storeMigratedTo, type StoreBeforeAMigration } from './support/store-before-a-migration.js';
import { TEST_DIALECTS } from './support/test-databases.js';

const BEFORE = '0076-organization-sign-up';

const row = (day: string, organization: number, user: number, model: string, requests: number) => ({
  day,
  organization_id: organization,
  user_id: user,
  assistant_id: 7,
  model,
  requests,
  prompt_tokens: requests * 10,
  completion_tokens: requests * 2,
  cost_micro_usd: requests * 3,
});

const numbers = (rows: Array<Record<string, unknown>>) =>
  rows.map((stored) =>
    Object.fromEntries(
      Object.entries(stored).map(([key, value]) => [key, typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value]),
    ),
  );

describe.each(TEST_DIALECTS)('migrations 0078 and 0083 on %s', (dialect) => {
  let store: StoreBeforeAMigration | undefined;

  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('sums every usage_daily row into the month and model roll-ups, losing none', async () => {
    store = await storeMigratedTo(dialect, BEFORE);
    const { db } = store;
    const daily = [
      row('2026-01-30', 1, 11, 'gpt-4o', 1),
      row('2026-01-31', 1, 11, 'gpt-4o', 2),
      row('2026-01-31', 1, 12, 'gpt-4o', 4),
      row('2026-02-01', 1, 11, 'gpt-4o', 8),
      row('2026-02-01', 2, 21, 'llama3.1:8b', 16),
    ];
    await db.insertInto('usage_daily').values(daily).execute();
    await store.migrateToLatest();
    expect(
      numbers(await db.selectFrom('usage_daily').selectAll().orderBy('day').orderBy('organization_id').orderBy('user_id').execute()),
    ).toEqual(daily);
    expect(
      numbers(await db.selectFrom('usage_monthly').selectAll().orderBy('month').orderBy('organization_id').orderBy('user_id').execute()),
    ).toEqual(
      [
        { ...row('', 1, 11, 'gpt-4o', 3), day: undefined, month: '2026-01' },
        { ...row('', 1, 12, 'gpt-4o', 4), day: undefined, month: '2026-01' },
        { ...row('', 1, 11, 'gpt-4o', 8), day: undefined, month: '2026-02' },
        { ...row('', 2, 21, 'llama3.1:8b', 16), day: undefined, month: '2026-02' },
      ].map(({ day: _day, ...rest }) => rest),
    );
    const models = await db.selectFrom('usage_daily_models').selectAll().orderBy('day').orderBy('organization_id').execute();
    expect(
      numbers(models).map((stored) => [stored.day, stored.organization_id, stored.model, stored.requests, stored.cost_micro_usd]),
    ).toEqual([
      ['2026-01-30', 1, 'gpt-4o', 1, 3],
      ['2026-01-31', 1, 'gpt-4o', 6, 18],
      ['2026-02-01', 1, 'gpt-4o', 8, 24],
      ['2026-02-01', 2, 'llama3.1:8b', 16, 48],
    ]);
    // Migration 0083's roll-ups: all five days above are in the week of Monday 2026-01-26.
    const requestsOf = async (
      table:
        'usage_daily_assistants' | 'usage_monthly_assistants' | 'usage_monthly_people' | 'usage_weekly_people' | 'usage_quarterly_people',
    ) =>
      numbers(await db.selectFrom(table).selectAll().execute())
        .map(({ requests, prompt_tokens, completion_tokens, cost_micro_usd, ...key }) => {
          expect([prompt_tokens, completion_tokens, cost_micro_usd]).toEqual([
            Number(requests) * 10,
            Number(requests) * 2,
            Number(requests) * 3,
          ]);
          return [...Object.values(key), requests].join(' ');
        })
        .sort();
    expect(await requestsOf('usage_weekly_people')).toEqual(['2026-01-26 1 11 11', '2026-01-26 1 12 4', '2026-01-26 2 21 16'].sort());
    expect(await requestsOf('usage_monthly_people')).toEqual(
      ['2026-01 1 11 3', '2026-01 1 12 4', '2026-02 1 11 8', '2026-02 2 21 16'].sort(),
    );
    // Migration 0086's quarters, from those months: January and February are both in the quarter of 2026-01.
    expect(await requestsOf('usage_quarterly_people')).toEqual(['2026-01 1 11 11', '2026-01 1 12 4', '2026-01 2 21 16'].sort());
    expect(await requestsOf('usage_daily_assistants')).toEqual(
      ['2026-01-30 1 7 gpt-4o 1', '2026-01-31 1 7 gpt-4o 6', '2026-02-01 1 7 gpt-4o 8', '2026-02-01 2 7 llama3.1:8b 16'].sort(),
    );
    expect(await requestsOf('usage_monthly_assistants')).toEqual(
      ['2026-01 1 7 gpt-4o 7', '2026-02 1 7 gpt-4o 8', '2026-02 2 7 llama3.1:8b 16'].sort(),
    );
  });
});
