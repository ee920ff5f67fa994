/**
 * The windows the token and cost quotas count in: the UTC calendar month and the UTC day, as
 * the daily roll-up's `day` keys them, and when each resets.
 */
export interface QuotaWindows {
  /** YYYY-MM-DD of the month's first day. */
  monthStart: string;
  /** YYYY-MM, the month alerts are recorded under. */
  month: string;
  today: string;
  monthResetsAt: Date;
  dayResetsAt: Date;
}

export function quotaWindows(now: Date): QuotaWindows {
  const today = now.toISOString().slice(0, 10);
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  return {
    monthStart: `${today.slice(0, 7)}-01`,
    month: today.slice(0, 7),
    today,
    monthResetsAt: new Date(Date.UTC(year, month + 1, 1)),
    dayResetsAt: new Date(Date.UTC(year, month, now.getUTCDate() + 1)),
  };
}
