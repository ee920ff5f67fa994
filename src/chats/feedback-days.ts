/**
 * The days a feedback listing may be narrowed to: `from` and `to` as real UTC days (the schema
 * checks only their shape), either one alone or both in order, turned into the span of timestamps
 * the store compares ratings' times with.
 */
import { AppError } from '../errors/app-error.js';

const DAY_MILLISECONDS = 86_400_000;

function dayStart(text: string, param: 'from' | 'to'): number {
  const time = Date.parse(`${text}T00:00:00Z`);
  // 2025-02-30 parses as March 2nd in some engines and fails in others; a real day prints back as itself.
  if (Number.isNaN(time) || new Date(time).toISOString().slice(0, 10) !== text)
    throw new AppError('invalid_query', `${param} is not a real day; write it as YYYY-MM-DD.`, { param });
  return time;
}

/** `since` the start of `from`, `before` the start of the day after `to`; each undefined when not asked. */
export function feedbackSpan(days: { from?: string | undefined; to?: string | undefined }): { since?: string; before?: string } {
  const since = days.from === undefined ? undefined : dayStart(days.from, 'from');
  const before = days.to === undefined ? undefined : dayStart(days.to, 'to') + DAY_MILLISECONDS;
  if (since !== undefined && before !== undefined && since >= before)
    throw new AppError('invalid_query', 'from is after to; the listing needs from on or before to.', { param: 'from' });
  return {
    ...(since !== undefined && { since: new Date(since).toISOString() }),
    ...(before !== undefined && { before: new Date(before).toISOString() }),
  };
}
