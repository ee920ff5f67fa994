/**
 * Which roll-up a usage report reads for which days (docs/usage.md, "The roll-ups"). Each roll-up
 * keeps some of usage's columns (organization always; person, assistant, model) per day, week,
 * calendar month or calendar quarter. A report reads each stretch of its range from the coarsest
 * period that covers it whole and keeps every column it groups by or narrows to: whole quarters,
 * then whole months around them, then whole weeks, then single days; a report by day reads daily
 * roll-ups throughout. So an organization's year by person sums about four rows per person, not
 * one per person, assistant, model and day.
 */
export type UsageRollUp =
  | 'usage_daily'
  | 'usage_monthly'
  | 'usage_daily_models'
  | 'usage_daily_assistants'
  | 'usage_monthly_assistants'
  | 'usage_monthly_people'
  | 'usage_weekly_people'
  | 'usage_quarterly_people';

/** A usage column a report may group by or narrow to, beyond the organization and the period. */
export type UsageColumn = 'user_id' | 'assistant_id' | 'model';

export interface UsageReportPart {
  rollUp: UsageRollUp;
  /**
   * Inclusive: days (YYYY-MM-DD), months (YYYY-MM) for the monthly roll-ups, quarters' first months
   * (YYYY-MM) for the quarterly one, or weeks' Mondays (YYYY-MM-DD) for the weekly one.
   */
  from: string;
  to: string;
}

export interface UsagePartsQuery {
  from: string;
  to: string;
  /** Whether the report groups by day: months cannot answer that. */
  byDay: boolean;
  /** The columns the report groups by or narrows to. */
  columns: ReadonlySet<UsageColumn>;
}

/** Each roll-up's columns beyond organization and period, smallest roll-up first within its period. */
const DAILY_ROLL_UPS: ReadonlyArray<[UsageRollUp, readonly UsageColumn[]]> = [
  ['usage_daily_models', ['model']],
  ['usage_daily_assistants', ['assistant_id', 'model']],
  ['usage_daily', ['user_id', 'assistant_id', 'model']],
];
const MONTHLY_ROLL_UPS: ReadonlyArray<[UsageRollUp, readonly UsageColumn[]]> = [
  ['usage_monthly_people', ['user_id']],
  ['usage_monthly_assistants', ['assistant_id', 'model']],
  ['usage_monthly', ['user_id', 'assistant_id', 'model']],
];

/** Weeks (Monday to Sunday, UTC) are kept only per person: the days around a report's whole months are most of its rows only there. */
const WEEKLY_ROLL_UPS: ReadonlyArray<[UsageRollUp, readonly UsageColumn[]]> = [['usage_weekly_people', ['user_id']]];

/** Quarters are kept only per person: a year by person is the report whose rows they cut most. */
const QUARTERLY_ROLL_UPS: ReadonlyArray<[UsageRollUp, readonly UsageColumn[]]> = [['usage_quarterly_people', ['user_id']]];

export type UsagePeriod = 'day' | 'week' | 'month' | 'quarter';

/** The period column of each roll-up. */
export function periodOf(rollUp: UsageRollUp): UsagePeriod {
  if (QUARTERLY_ROLL_UPS.some(([quarterly]) => quarterly === rollUp)) return 'quarter';
  if (MONTHLY_ROLL_UPS.some(([monthly]) => monthly === rollUp)) return 'month';
  return WEEKLY_ROLL_UPS.some(([weekly]) => weekly === rollUp) ? 'week' : 'day';
}

function smallestKeeping(
  rollUps: ReadonlyArray<[UsageRollUp, readonly UsageColumn[]]>,
  columns: ReadonlySet<UsageColumn>,
): UsageRollUp | undefined {
  return rollUps.find(([, kept]) => [...columns].every((column) => kept.includes(column)))?.[0];
}

const DAY_MILLISECONDS = 86_400_000;

function timeOf(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

function dayText(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/** The Monday of the week `day` is in (weeks start on Monday, UTC). */
export function weekOf(day: string): string {
  const time = timeOf(day);
  return dayText(time - ((new Date(time).getUTCDay() + 6) % 7) * DAY_MILLISECONDS);
}

/** The first day of the first period of `months` calendar months (1 or 3, from January) that starts on or after `day`. */
function firstWholePeriodStart(day: string, months: number): string {
  const date = new Date(timeOf(day));
  const month = date.getUTCMonth();
  if (date.getUTCDate() === 1 && month % months === 0) return day;
  return dayText(Date.UTC(date.getUTCFullYear(), month - (month % months) + months, 1));
}

/** The first month (YYYY-MM) of the period of `months` calendar months that `day` is in. */
function periodFirstMonth(day: string, months: number): string {
  const date = new Date(timeOf(day));
  return dayText(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() - (date.getUTCMonth() % months), 1)).slice(0, 7);
}

/** The quarter (its first month, YYYY-MM) a day (YYYY-MM-DD) is in. */
export function quarterOf(day: string): string {
  return periodFirstMonth(day, 3);
}

/** The last day of the last period of `months` calendar months that ends on or before `day`. */
function lastWholePeriodEnd(day: string, months: number): string {
  const next = new Date(timeOf(day) + DAY_MILLISECONDS);
  if (next.getUTCDate() === 1 && next.getUTCMonth() % months === 0) return day;
  return dayText(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() - (next.getUTCMonth() % months), 1) - DAY_MILLISECONDS);
}

/**
 * The days from `from` to `to` (inclusive), read from the weekly roll-up for the whole weeks among
 * them when the report's columns let it, and from the daily roll-up for the rest.
 */
function dayParts(from: string, to: string, columns: ReadonlySet<UsageColumn>): UsageReportPart[] {
  const daily = smallestKeeping(DAILY_ROLL_UPS, columns)!;
  const weekly = smallestKeeping(WEEKLY_ROLL_UPS, columns);
  const firstMonday = weekOf(from) === from ? from : dayText(timeOf(weekOf(from)) + 7 * DAY_MILLISECONDS);
  const lastMonday = dayText(timeOf(weekOf(dayText(timeOf(to) + DAY_MILLISECONDS))) - 7 * DAY_MILLISECONDS);
  if (weekly === undefined || firstMonday > lastMonday) return [{ rollUp: daily, from, to }];
  const parts: UsageReportPart[] = [{ rollUp: weekly, from: firstMonday, to: lastMonday }];
  if (from < firstMonday) parts.push({ rollUp: daily, from, to: dayText(timeOf(firstMonday) - DAY_MILLISECONDS) });
  const weeksEnd = dayText(timeOf(lastMonday) + 6 * DAY_MILLISECONDS);
  if (weeksEnd < to) parts.push({ rollUp: daily, from: dayText(timeOf(weeksEnd) + DAY_MILLISECONDS), to });
  return parts;
}

/** A stretch of days read from one coarser roll-up, and the edges around it read at finer periods. */
interface CoarsePeriod {
  rollUps: ReadonlyArray<[UsageRollUp, readonly UsageColumn[]]>;
  months: number;
  /** How the days outside the whole periods are read. */
  finer: (from: string, to: string, columns: ReadonlySet<UsageColumn>) => UsageReportPart[];
}

function coarseParts(period: CoarsePeriod, from: string, to: string, columns: ReadonlySet<UsageColumn>): UsageReportPart[] {
  const rollUp = smallestKeeping(period.rollUps, columns);
  const periodsFrom = firstWholePeriodStart(from, period.months);
  const periodsTo = lastWholePeriodEnd(to, period.months);
  if (rollUp === undefined || periodsFrom > periodsTo) return period.finer(from, to, columns);
  const parts: UsageReportPart[] = [
    { rollUp, from: periodFirstMonth(periodsFrom, period.months), to: periodFirstMonth(periodsTo, period.months) },
  ];
  if (from < periodsFrom) parts.push(...period.finer(from, dayText(timeOf(periodsFrom) - DAY_MILLISECONDS), columns));
  if (periodsTo < to) parts.push(...period.finer(dayText(timeOf(periodsTo) + DAY_MILLISECONDS), to, columns));
  return parts;
}

const MONTHS: CoarsePeriod = { rollUps: MONTHLY_ROLL_UPS, months: 1, finer: dayParts };
const QUARTERS: CoarsePeriod = {
  rollUps: QUARTERLY_ROLL_UPS,
  months: 3,
  finer: (from, to, columns) => coarseParts(MONTHS, from, to, columns),
};

export function usageReportParts(query: UsagePartsQuery): UsageReportPart[] {
  const { from, to, columns } = query;
  // The last daily roll-up keeps every column, so one is always found.
  const daily = smallestKeeping(DAILY_ROLL_UPS, columns)!;
  // Models hold one row per organization, day and model: a year of them is no more than a year of months would be.
  if (query.byDay || daily === 'usage_daily_models') return [{ rollUp: daily, from, to }];
  return coarseParts(QUARTERS, from, to, columns);
}
