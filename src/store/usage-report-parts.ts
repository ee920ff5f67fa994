/**
 * Which roll-up a usage report reads for which days (docs/usage.md, "The roll-ups"). A report by
 * day, by model or its totals, over a whole organization or the whole server, reads
 * usage_daily_models: one row per organization, day and model, however many people asked. A
 * report that needs people or assistants reads usage_monthly for the whole calendar months inside
 * its range and usage_daily for the days before and after them, so a year costs twelve months
 * of rows plus at most two partial months of days rather than 366 days of them.
 */
export type UsageRollUp = 'usage_daily' | 'usage_monthly' | 'usage_daily_models';

export interface UsageReportPart {
  rollUp: UsageRollUp;
  /** Inclusive: days (YYYY-MM-DD), or months (YYYY-MM) for usage_monthly. */
  from: string;
  to: string;
}

export interface UsagePartsQuery {
  from: string;
  to: string;
  /** Whether the report groups by day: months cannot answer that. */
  byDay: boolean;
  /** Whether the report needs people or assistants (grouped by them, narrowed to them, or a caller's own share). */
  needsPeople: boolean;
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

/** The last day of the last calendar month that ends on or before `day`. */
function lastWholeMonthEnd(day: string): string {
  const next = dayText(timeOf(day) + DAY_MILLISECONDS);
  return next.endsWith('-01') ? day : dayText(Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, 1) - DAY_MILLISECONDS);
}

export function usageReportParts(query: UsagePartsQuery): UsageReportPart[] {
  const { from, to } = query;
  if (!query.needsPeople) return [{ rollUp: 'usage_daily_models', from, to }];
  if (query.byDay) return [{ rollUp: 'usage_daily', from, to }];
  const monthsFrom = firstWholeMonthStart(from);
  const monthsTo = lastWholeMonthEnd(to);
  if (monthsFrom > monthsTo) return [{ rollUp: 'usage_daily', from, to }];
  const parts: UsageReportPart[] = [{ rollUp: 'usage_monthly', from: monthsFrom.slice(0, 7), to: monthsTo.slice(0, 7) }];
  if (from < monthsFrom) parts.push({ rollUp: 'usage_daily', from, to: dayText(timeOf(monthsFrom) - DAY_MILLISECONDS) });
  if (monthsTo < to) parts.push({ rollUp: 'usage_daily', from: dayText(timeOf(monthsTo) + DAY_MILLISECONDS), to });
  return parts;
}
