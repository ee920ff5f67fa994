/**
 * The periods usage is read for: UTC days written YYYY-MM-DD, as the API counts them. The usage
 * pages open on this month (its first day to today), and a report by day lists only days with use,
 * so the charts fill the quiet days in with zeros.
 */
import type { UsageGroup } from '$lib/api/usage';

const DAY_MILLISECONDS = 86_400_000;

export interface UsagePeriod {
  from: string;
  to: string;
}

function dayOf(moment: Date): string {
  return moment.toISOString().slice(0, 10);
}

/** From the first of this month to today, in UTC. */
export function thisMonth(now: Date = new Date()): UsagePeriod {
  return { from: `${dayOf(now).slice(0, 7)}-01`, to: dayOf(now) };
}

/** Whether both ends are real days, in order (the server says why otherwise). */
export function isPeriod(period: UsagePeriod): boolean {
  const from = Date.parse(`${period.from}T00:00:00Z`);
  const to = Date.parse(`${period.to}T00:00:00Z`);
  return Number.isFinite(from) && Number.isFinite(to) && from <= to;
}

/** Every day of the period, in order (at most the server's USAGE_RANGE_DAYS_MAX, so a few hundred). */
export function daysOf(period: UsagePeriod): string[] {
  const days: string[] = [];
  const last = Date.parse(`${period.to}T00:00:00Z`);
  for (let day = Date.parse(`${period.from}T00:00:00Z`); day <= last; day += DAY_MILLISECONDS) days.push(dayOf(new Date(day)));
  return days;
}

/** The report's days with the days that had no use as zeros, one entry per day of the period. */
export function everyDay(period: UsagePeriod, groups: UsageGroup[]): UsageGroup[] {
  const byDay = new Map(groups.map((group) => [group.key, group]));
  return daysOf(period).map(
    (day) => byDay.get(day) ?? { key: day, label: null, requests: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost_usd: 0 },
  );
}
