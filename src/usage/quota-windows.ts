/**
 * The windows the token and cost quotas count in: the UTC calendar month and the UTC day, as
 * the daily roll-up's `day` keys them, and when each resets. A month is read in two parts: its
 * settled days (before yesterday), whose sums no longer change and may be kept, and the live
 * days (yesterday and today), read at every admission. Yesterday stays live because a run ending
 * just before midnight may be written into it a moment after (RUN_RECORD_WINDOW_MS).
 */
export interface QuotaWindows {
  /** YYYY-MM-DD of the month's first day. */
  monthStart: string;
  /** YYYY-MM, the month alerts are recorded under. */
  month: string;
  today: string;
  /** The month's settled days run from monthStart to this day, included; undefined when it has none yet. */
  settledTo: string | undefined;
  /** The first day the month's usage is read live: yesterday, or the month's first day. */
  liveFrom: string;
  monthResetsAt: Date;
  dayResetsAt: Date;
}

function dayOf(year: number, month: number, date: number): string {
  return new Date(Date.UTC(year, month, date)).toISOString().slice(0, 10);
}

export function quotaWindows(now: Date): QuotaWindows {
  const today = now.toISOString().slice(0, 10);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const monthStart = `${today.slice(0, 7)}-01`;
  const settled = now.getUTCDate() >= 3;
  return {
    monthStart,
    month: today.slice(0, 7),
    today,
    settledTo: settled ? dayOf(year, month, now.getUTCDate() - 2) : undefined,
    liveFrom: settled ? dayOf(year, month, now.getUTCDate() - 1) : monthStart,
    monthResetsAt: new Date(Date.UTC(year, month + 1, 1)),
    dayResetsAt: new Date(Date.UTC(year, month, now.getUTCDate() + 1)),
  };
}
