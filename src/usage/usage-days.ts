/**
 * The days a usage report covers: `from` and `to` as real UTC days (the schema checks only their
 * shape), `from` not after `to`, and no more than USAGE_RANGE_DAYS_MAX days from one to the other,
 * both included. Without `to` the report ends today; without `from` it starts 29 days before `to`.
 */
import { AppError } from '../errors/app-error.js';

const DAY_MILLISECONDS = 86_400_000;
const DEFAULT_SPAN_DAYS = 30;

export interface UsageDaysInput {
  from?: string | undefined;
  to?: string | undefined;
  rangeDaysMaximum: number;
}

function dayOf(text: string, param: 'from' | 'to'): number {
  const time = Date.parse(`${text}T00:00:00Z`);
  // 2025-02-30 parses as March 2nd in some engines and fails in others; a real day prints back as itself.
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== text)
    throw new AppError('invalid_query', `${param} is not a real day; write it as YYYY-MM-DD.`, { param });
  return time;
}

function textOf(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

export function usageDays(input: UsageDaysInput): { from: string; to: string } {
  const to = input.to === undefined ? Date.parse(`${textOf(Date.now())}T00:00:00Z`) : dayOf(input.to, 'to');
  const from =
    input.from === undefined
      ? to - (Math.min(DEFAULT_SPAN_DAYS, input.rangeDaysMaximum) - 1) * DAY_MILLISECONDS
      : dayOf(input.from, 'from');
  if (from > to) throw new AppError('invalid_query', 'from is after to; the report needs from on or before to.', { param: 'from' });
  const days = (to - from) / DAY_MILLISECONDS + 1;
  if (days > input.rangeDaysMaximum)
    throw new AppError(
      'invalid_query',
      `The range spans ${days} days; a report may span at most ${input.rangeDaysMaximum} (USAGE_RANGE_DAYS_MAX).`,
      { param: 'to', details: { days_maximum: input.rangeDaysMaximum } },
    );
  return { from: textOf(from), to: textOf(to) };
}
