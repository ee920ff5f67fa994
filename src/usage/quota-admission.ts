/**
 * The token and cost quotas, checked before a run calls any model (docs/quotas.md): an
 * organization's `tokens_per_month` and `cost_per_month_usd`, a person's `tokens_per_user_per_day`
 * with the organization's assistants, and an assistant's own monthly cost limit. Spend is read from
 * the daily roll-up (UTC calendar month, UTC day), never from usage_logs.
 *
 * A month's days before yesterday no longer change: their sums are read once per process and day
 * and kept; yesterday's and today's are read at each admission (quota-windows.ts).
 *
 * Admission is a reservation, taken under the organization's admission lock (a PostgreSQL
 * advisory lock, or SQLite's single writer) so that admissions in any number of processes take
 * turns. For each limit it counts what the roll-up holds (`used`) plus the reservations still
 * held, and admits a run when either
 *  - `used + held + estimate ≤ limit`, the estimate being the mean tokens (or cost) per model call
 *    in the limit's window so far: the run fits beside the others; or
 *  - `used < limit` and nothing is held in the limit's scope: the run takes the last of the limit
 *    alone (also the rule while the window has no calls to estimate from).
 * Otherwise it refuses with 429 `quota_exceeded`: `exhausted` when `used ≥ limit` (Retry-After
 * until the window resets), `in_use` when the rest is held by runs still going (retry shortly).
 * An admitted run holds a reservation of the estimate until the run-record writer settles it, in
 * the transaction that adds the run's usage to the roll-up, so at no moment is a run counted
 * neither as used nor as held. A reservation that is never settled (the process was killed)
 * stops counting after QUOTA_RESERVATION_SECONDS.
 *
 * The bound: while every run uses at most its reservation, runs admitted side by side stay
 * within the limit, and only a run admitted alone may pass it, so a limit is passed by at most
 * the tokens (or cost) of one request, however many processes and concurrent requests there are.
 * Runs side by side that each use more than the mean can add what they used beyond it.
 */
import type { Kysely } from 'kysely';
import { AppError } from '../errors/app-error.js';
import type { OrganizationLimits } from '../organizations/organization-controls.js';
import type { Dialect } from '../store/dialect.js';
import {
  deleteExpiredReservations,
  deleteReservations,
  insertReservation,
  lockQuotaAdmission,
  readQuotaCounts,
  readSettledSums,
  type HeldSums,
  type QuotaCounts,
  type WindowSums,
} from '../store/quota-repository.js';
import type { HotReadCache } from '../store/hot-read-cache.js';
import type { Database } from '../store/schema.js';
import { quotaWindows, type QuotaWindows } from './quota-windows.js';

/** What an `in_use` refusal suggests waiting: the runs holding the rest usually end within seconds. */
const IN_USE_RETRY_SECONDS = 5;
const MICRO_USD_PER_USD = 1_000_000;

export interface AssistantCostLimit {
  cost_per_month_usd: number;
}

export interface QuotaAdmissionOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  reservationMilliseconds: number;
  /** The organization's limits, as runs read them (organization-controls.ts). */
  limitsFor: (organizationId: number) => Promise<OrganizationLimits>;
  /** The assistant's own cost limit, if its owner set one. */
  assistantLimitFor: (assistantId: number) => Promise<AssistantCostLimit | undefined>;
  /** The time admissions are made at; the clock unless a test names days. */
  now?: () => Date;
  /** Sums of months' settled days, keyed by scope and days (so never stale); bounded in entries. */
  settledSums: HotReadCache<string, WindowSums>;
  /** Told this month's spend of an assistant with a limit after each admission, to record crossed alert thresholds. */
  onAssistantSpend: (notice: AssistantSpend) => Promise<void>;
}

export interface AssistantSpend {
  assistantId: number;
  organizationId: number;
  spentMicroUsd: number;
  requestId: string | null;
}

/** The request a run is counted for: its user, and the assistant it was made to. */
export interface QuotaRequest {
  organizationId: number;
  userId: number;
  assistantId: number;
  requestId: string | null;
}

type Unit = 'tokens' | 'cost';

/** One limit as an admission weighs it. */
interface WeighedLimit {
  /** `limits.tokens_per_month`, …, or `quota.cost_per_month_usd` for the assistant's. */
  param: string;
  name: string;
  unit: Unit;
  /** In tokens, or micro-dollars. */
  maximum: number;
  window: WindowSums;
  held: HeldSums;
  resetsAt: Date;
  describe: string;
}

type Verdict = { admitted: true; estimate: number | undefined } | { admitted: false; reason: 'exhausted' | 'in_use' };

const NOTHING: WindowSums = { requests: 0, tokens: 0, cost_micro_usd: 0 };

function plus(first: WindowSums, second: WindowSums): WindowSums {
  return {
    requests: first.requests + second.requests,
    tokens: first.tokens + second.tokens,
    cost_micro_usd: first.cost_micro_usd + second.cost_micro_usd,
  };
}

function amountOf(sums: WindowSums | HeldSums, unit: Unit): number {
  return unit === 'tokens' ? sums.tokens : sums.cost_micro_usd;
}

function weigh(limit: WeighedLimit): Verdict {
  const used = amountOf(limit.window, limit.unit);
  if (used >= limit.maximum) return { admitted: false, reason: 'exhausted' };
  const estimate = limit.window.requests > 0 ? Math.ceil(used / limit.window.requests) : undefined;
  if (estimate !== undefined && used + amountOf(limit.held, limit.unit) + estimate <= limit.maximum) return { admitted: true, estimate };
  if (limit.held.count === 0) return { admitted: true, estimate };
  return { admitted: false, reason: 'in_use' };
}

function shownAmount(unit: Unit, amount: number): string {
  return unit === 'tokens' ? `${amount} tokens` : `$${(amount / MICRO_USD_PER_USD).toFixed(2)}`;
}

function refusal(limit: WeighedLimit, reason: 'exhausted' | 'in_use', now: Date): AppError {
  // People read the message (the chat shows it as it is); `details.resets_at` keeps the exact ISO time for programs.
  const resetsAtText = `${limit.resetsAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const used = amountOf(limit.window, limit.unit);
  const untilReset = Math.max(1, Math.ceil((limit.resetsAt.getTime() - now.getTime()) / 1000));
  const retryAfterSeconds = reason === 'exhausted' ? untilReset : Math.min(IN_USE_RETRY_SECONDS, untilReset);
  const message =
    reason === 'exhausted'
      ? `${limit.describe} (${limit.name}: ${shownAmount(limit.unit, limit.maximum)}) is used up; it resets at ${resetsAtText}.`
      : `The rest of ${limit.describe.toLowerCase()} (${limit.name}: ${shownAmount(limit.unit, limit.maximum)}) is held by requests still running; try again in a few seconds. It resets at ${resetsAtText}.`;
  return new AppError('quota_exceeded', message, {
    param: limit.param,
    details: {
      limit: limit.name,
      reason,
      unit: limit.unit === 'tokens' ? 'tokens' : 'usd',
      maximum: limit.unit === 'tokens' ? limit.maximum : limit.maximum / MICRO_USD_PER_USD,
      used: limit.unit === 'tokens' ? used : used / MICRO_USD_PER_USD,
      resets_at: limit.resetsAt.toISOString(),
      retry_after_seconds: retryAfterSeconds,
    },
  });
}

function weighedLimits(
  limits: OrganizationLimits,
  assistantLimit: AssistantCostLimit | undefined,
  counts: QuotaCounts,
  windows: QuotaWindows,
): WeighedLimit[] {
  const weighed: WeighedLimit[] = [];
  const month = { window: counts.organizationMonth, held: counts.heldByOrganization, resetsAt: windows.monthResetsAt };
  if (limits.tokens_per_month !== undefined)
    weighed.push({
      ...month,
      param: 'limits.tokens_per_month',
      name: 'tokens_per_month',
      unit: 'tokens',
      maximum: limits.tokens_per_month,
      describe: "This organization's monthly token limit",
    });
  if (limits.cost_per_month_usd !== undefined)
    weighed.push({
      ...month,
      param: 'limits.cost_per_month_usd',
      name: 'cost_per_month_usd',
      unit: 'cost',
      maximum: Math.round(limits.cost_per_month_usd * MICRO_USD_PER_USD),
      describe: "This organization's monthly cost limit",
    });
  if (limits.tokens_per_user_per_day !== undefined)
    weighed.push({
      param: 'limits.tokens_per_user_per_day',
      name: 'tokens_per_user_per_day',
      unit: 'tokens',
      maximum: limits.tokens_per_user_per_day,
      window: counts.userDay,
      held: counts.heldByUser,
      resetsAt: windows.dayResetsAt,
      describe: 'Your daily token limit in this organization',
    });
  if (assistantLimit !== undefined)
    weighed.push({
      param: 'quota.cost_per_month_usd',
      name: 'assistant cost_per_month_usd',
      unit: 'cost',
      maximum: Math.round(assistantLimit.cost_per_month_usd * MICRO_USD_PER_USD),
      window: counts.assistantMonth,
      held: counts.heldByAssistant,
      resetsAt: windows.monthResetsAt,
      describe: "This assistant's monthly cost limit, set by its owner",
    });
  return weighed;
}

/** The reservation of an admitted run: for each unit, the largest estimate of its limits (0 when none is known). */
function reservedAmount(weighed: readonly WeighedLimit[], verdicts: readonly Verdict[], unit: Unit): number {
  let amount = 0;
  weighed.forEach((limit, index) => {
    const verdict = verdicts[index];
    if (limit.unit === unit && verdict?.admitted === true) amount = Math.max(amount, verdict.estimate ?? 0);
  });
  return amount;
}

export class QuotaAdmission {
  constructor(private readonly options: QuotaAdmissionOptions) {}

  /**
   * Admits a run, or throws 429 `quota_exceeded` naming the first limit it would pass. Returns the
   * id of its reservation, which the run's usage record settles; undefined when no token or cost
   * limit applies (nothing is locked, read or written then).
   */
  async admit(request: QuotaRequest): Promise<number | undefined> {
    const { db, dialect, reservationMilliseconds } = this.options;
    const limits = await this.options.limitsFor(request.organizationId);
    const assistantLimit = await this.options.assistantLimitFor(request.assistantId);
    const organizationMonth = limits.tokens_per_month !== undefined || limits.cost_per_month_usd !== undefined;
    const userDay = limits.tokens_per_user_per_day !== undefined;
    if (!organizationMonth && !userDay && assistantLimit === undefined) return undefined;
    const now = this.options.now?.() ?? new Date();
    const windows = quotaWindows(now);
    const settled = {
      organization: organizationMonth ? await this.settledSums('organization_id', request.organizationId, windows) : NOTHING,
      assistant: assistantLimit !== undefined ? await this.settledSums('assistant_id', request.assistantId, windows) : NOTHING,
    };
    const admitted = await db.transaction().execute(async (transaction) => {
      await lockQuotaAdmission(transaction, dialect, request.organizationId);
      await deleteExpiredReservations(transaction, request.organizationId, now.toISOString());
      const counts = await readQuotaCounts(transaction, {
        organizationId: request.organizationId,
        userId: request.userId,
        assistantId: request.assistantId,
        liveFrom: windows.liveFrom,
        today: windows.today,
        now: now.toISOString(),
        organizationMonth,
        userDay,
        assistantMonth: assistantLimit !== undefined,
      });
      counts.organizationMonth = plus(counts.organizationMonth, settled.organization);
      counts.assistantMonth = plus(counts.assistantMonth, settled.assistant);
      const weighed = weighedLimits(limits, assistantLimit, counts, windows);
      const verdicts = weighed.map(weigh);
      const assistantSpent = counts.assistantMonth.cost_micro_usd;
      const refused = verdicts.findIndex((verdict) => !verdict.admitted);
      const verdict = verdicts[refused];
      if (verdict !== undefined && !verdict.admitted)
        return { refusal: refusal(weighed[refused] as WeighedLimit, verdict.reason, now), assistantSpent };
      const reservationId = await insertReservation(transaction, {
        organization_id: request.organizationId,
        user_id: request.userId,
        assistant_id: request.assistantId,
        tokens: reservedAmount(weighed, verdicts, 'tokens'),
        cost_micro_usd: reservedAmount(weighed, verdicts, 'cost'),
        expires_at: new Date(now.getTime() + reservationMilliseconds).toISOString(),
      });
      return { reservationId, assistantSpent };
    });
    if (assistantLimit !== undefined)
      await this.options.onAssistantSpend({
        assistantId: request.assistantId,
        organizationId: request.organizationId,
        spentMicroUsd: admitted.assistantSpent,
        requestId: request.requestId,
      });
    if (admitted.refusal !== undefined) throw admitted.refusal;
    return admitted.reservationId;
  }

  /** The month's settled days of an organization or assistant: read once a day per process, as they no longer change. */
  private async settledSums(column: 'organization_id' | 'assistant_id', id: number, windows: QuotaWindows): Promise<WindowSums> {
    const { settledTo } = windows;
    if (settledTo === undefined) return NOTHING;
    const key = `${column}:${id}:${windows.monthStart}:${settledTo}`;
    return this.options.settledSums.read(key, () =>
      readSettledSums(this.options.db, { column, id, from: windows.monthStart, to: settledTo }),
    );
  }

  /** Gives a reservation back when its run never started (it failed before calling anything). */
  async release(reservationId: number): Promise<void> {
    await deleteReservations(this.options.db, [reservationId]);
  }
}
