/**
 * Which roll-up a usage report reads for which days (docs/usage.md, "The roll-ups"). Each roll-up
 * keeps some of usage's columns (organization always; person, assistant, model) per day or per
 * calendar month. A report reads, for the whole calendar months inside its range, the smallest
 * monthly roll-up that keeps every column it groups by or narrows to, and for the days before and
 * after them the smallest daily one; a report by day reads daily roll-ups throughout. So an
 * organization's year by person sums one row per person and month, not one per person,
 * assistant, model and day.
 */
export type UsageRollUp =
  | 'usage_daily'
  | 'usage_monthly'
  | 'usage_daily_models'
  | 'usage_daily_assistants'
  | 'usage_monthly_assistants'
  | 'usage_monthly_people'
  | 'usage_weekly_people';

/** A usage column a report may group by or narrow to, beyond the organization and the period. */
export type UsageColumn = 'user_id' | 'assistant_id' | 'model';

export interface UsageReportPart {
  rollUp: UsageRollUp;
  /** Inclusive: days (YYYY-MM-DD), months (YYYY-MM) for the monthly roll-ups, or weeks' Mondays (YYYY-MM-DD) for the weekly one. */
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

export type UsagePeriod = 'day' | 'week' | 'month';

/** The period column of each roll-up. */
export function periodOf(rollUp: UsageRollUp): UsagePeriod {
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

/** The first day of the first calendar month that starts on or after `day`. */
function firstWholeMonthStart(day: string): string {
  if (day.endsWith('-01')) return day;
  const date = new Date(timeOf(day));
  return dayText(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1));
}

/** The Monday of the week `day` is in (weeks start on Monday, UTC). */
export function weekOf(day: string): string {
  const time = timeOf(day);
  return dayText(time - ((new Date(time).getUTCDay() + 6) % 7) * DAY_MILLISECONDS);
}

/** The last day of the last calendar month that ends on or before `day`. */
function lastWholeMonthEnd(day: string): string {
  const next = dayText(timeOf(day) + DAY_MILLISECONDS);
  return next.endsWith('-01') ? day : dayText(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, 1) - DAY_MILLISECONDS);
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

export function usageReportParts(query: UsagePartsQuery): UsageReportPart[] {
  const { from, to, columns } = query;
  // The last daily and monthly roll-ups keep every column, so one of each is always found.
  const daily = smallestKeeping(DAILY_ROLL_UPS, columns)!;
  // Models hold one row per organization, day and model: a year of them is no more than a year of months would be.
  if (query.byDay || daily === 'usage_daily_models') return [{ rollUp: daily, from, to }];
  const monthsFrom = firstWholeMonthStart(from);
  const monthsTo = lastWholeMonthEnd(to);
  if (monthsFrom > monthsTo) return dayParts(from, to, columns);
  const parts: UsageReportPart[] = [
    { rollUp: smallestKeeping(MONTHLY_ROLL_UPS, columns)!, from: monthsFrom.slice(0, 7), to: monthsTo.slice(0, 7) },
  ];
  if (from < monthsFrom) parts.push(...dayParts(from, dayText(timeOf(monthsFrom) - DAY_MILLISECONDS), columns));
  if (monthsTo < to) parts.push(...dayParts(dayText(timeOf(monthsTo) + DAY_MILLISECONDS), to, columns));
  return parts;
}
