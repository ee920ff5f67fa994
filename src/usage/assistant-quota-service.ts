/**
 * An assistant's own monthly cost limit and its alert thresholds (LAMB's assistant_quota and
 * assistant_quota_alerts; docs/quotas.md). Those who manage the assistant (its owner, its
 * organization's admins, system admins) read and set it; the answer carries this month's spend
 * from the daily roll-up and which thresholds it has crossed. A threshold is recorded, with an
 * audit entry `assistant.quota_alert`, the first time Merino sees it crossed in a month: at the
 * next chat with the assistant or the next look at its quota, in whichever process.
 */
import type { Kysely } from 'kysely';
import { auditEntryOf, type CallContext } from '../auth/call-context.js';
import { loadAssistant } from '../assistants/assistant-records.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import type { Dialect } from '../store/dialect.js';
import type { HotReadCache } from '../store/hot-read-cache.js';
import {
  deleteAssistantQuota,
  findAssistantQuota,
  listQuotaAlerts,
  recordQuotaAlert,
  saveAssistantQuota,
  type AssistantQuotaRow,
} from '../store/quota-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import { readUsageTotals } from '../store/usage-daily-repository.js';
import { DEFAULT_ALERT_THRESHOLDS, type AssistantQuotaInput, type AssistantQuotaView } from './assistant-quota-schemas.js';
import type { AssistantCostLimit } from './quota-admission.js';
import { quotaWindows } from './quota-windows.js';

const MICRO_USD_PER_USD = 1_000_000;

export interface AssistantQuotaServiceOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Assistants' quotas as admissions read them (null: none set), for HOT_READ_CACHE_MS. */
  cache: HotReadCache<number, AssistantQuotaRow | null>;
  /** Writes the usage rows this process still holds, so the spend shown includes its latest requests. */
  flushRecords: () => Promise<void>;
}

/** Whom a crossed threshold is recorded for. */
interface SpendNotice {
  assistantId: number;
  organizationId: number;
  spentMicroUsd: number;
  requestId: string | null;
}

function thresholdsOf(row: AssistantQuotaRow): number[] {
  const stored: unknown = JSON.parse(row.alert_thresholds);
  return Array.isArray(stored) ? stored.filter((value): value is number => typeof value === 'number').sort((a, b) => a - b) : [];
}

function percentOf(row: AssistantQuotaRow, spentMicroUsd: number): number {
  return (spentMicroUsd / (row.cost_per_month_usd * MICRO_USD_PER_USD)) * 100;
}

export class AssistantQuotaService {
  constructor(private readonly options: AssistantQuotaServiceOptions) {}

  async view(context: CallContext, assistantId: number): Promise<AssistantQuotaView> {
    const record = await loadAssistant(this.options.db, context, assistantId, 'update');
    return this.viewOf(record.id, record.organization_id, context.requestId);
  }

  async update(context: CallContext, assistantId: number, input: AssistantQuotaInput): Promise<AssistantQuotaView> {
    const { db, cache } = this.options;
    const record = await loadAssistant(db, context, assistantId, 'update');
    const thresholds = [...(input.alert_thresholds ?? DEFAULT_ALERT_THRESHOLDS)].sort((a, b) => a - b);
    await db.transaction().execute(async (transaction) => {
      if (input.cost_per_month_usd === null) await deleteAssistantQuota(transaction, record.id);
      else
        await saveAssistantQuota(transaction, {
          assistant_id: record.id,
          cost_per_month_usd: input.cost_per_month_usd,
          alert_thresholds: JSON.stringify(thresholds),
          updated_at: nowTimestamp(),
        });
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'assistant', id: record.id, organizationId: record.organization_id }, 'assistant.quota_update', {
          cost_per_month_usd: input.cost_per_month_usd,
          alert_thresholds: input.cost_per_month_usd === null ? [] : thresholds,
        }),
      );
    });
    cache.forget(record.id);
    return this.viewOf(record.id, record.organization_id, context.requestId);
  }

  /** The assistant's limit as an admission weighs it; undefined when its owner set none. */
  async limitFor(assistantId: number): Promise<AssistantCostLimit | undefined> {
    const row = await this.quotaOf(assistantId);
    return row === undefined ? undefined : { cost_per_month_usd: row.cost_per_month_usd };
  }

  /** Records, once a month each, the thresholds an admission found crossed. */
  async noticeSpend(notice: SpendNotice): Promise<void> {
    const row = await this.quotaOf(notice.assistantId);
    if (row !== undefined) await this.recordCrossed(row, notice);
  }

  private async quotaOf(assistantId: number): Promise<AssistantQuotaRow | undefined> {
    const row = await this.options.cache.read(assistantId, async () => (await findAssistantQuota(this.options.db, assistantId)) ?? null);
    return row ?? undefined;
  }

  /** The thresholds crossed this month with when each was first seen; new ones are recorded and audited. */
  private async recordCrossed(row: AssistantQuotaRow, notice: SpendNotice): Promise<Map<number, string>> {
    const { db } = this.options;
    const { month } = quotaWindows(new Date());
    const crossed = thresholdsOf(row).filter((threshold) => percentOf(row, notice.spentMicroUsd) >= threshold);
    if (crossed.length === 0) return new Map();
    const recorded = new Map((await listQuotaAlerts(db, row.assistant_id, month)).map((alert) => [alert.threshold, alert.crossed_at]));
    for (const threshold of crossed.filter((candidate) => !recorded.has(candidate))) {
      const crossedAt = nowTimestamp();
      await db.transaction().execute(async (transaction) => {
        // Two processes may see it together: the one whose row goes in writes the audit entry.
        if (!(await recordQuotaAlert(transaction, { assistant_id: row.assistant_id, month, threshold, crossed_at: crossedAt }))) return;
        await appendAuditEntry(transaction, {
          actorUserId: null,
          organizationId: notice.organizationId,
          action: 'assistant.quota_alert',
          targetType: 'assistant',
          targetId: row.assistant_id,
          details: {
            month,
            threshold,
            cost_per_month_usd: row.cost_per_month_usd,
            spent_usd: notice.spentMicroUsd / MICRO_USD_PER_USD,
          },
          requestId: notice.requestId,
        });
      });
      recorded.set(threshold, crossedAt);
    }
    return recorded;
  }

  private async viewOf(assistantId: number, organizationId: number, requestId: string | null): Promise<AssistantQuotaView> {
    const { db, flushRecords } = this.options;
    await flushRecords();
    const windows = quotaWindows(new Date());
    const row = (await findAssistantQuota(db, assistantId)) ?? undefined;
    const totals = await readUsageTotals(db, {
      dialect: this.options.dialect,
      scope: { kind: 'all' },
      from: windows.monthStart,
      to: windows.today,
      groupBy: 'day',
      assistantId,
      groupsMaximum: 1,
    });
    const spent = totals.cost_micro_usd;
    const recorded =
      row === undefined
        ? new Map<number, string>()
        : await this.recordCrossed(row, { assistantId, organizationId, spentMicroUsd: spent, requestId });
    const percent = row === undefined ? null : percentOf(row, spent);
    return {
      assistant_id: assistantId,
      cost_per_month_usd: row?.cost_per_month_usd ?? null,
      alert_thresholds: row === undefined ? [] : thresholdsOf(row),
      month: windows.month,
      spent_usd: spent / MICRO_USD_PER_USD,
      spent_percent: percent === null ? null : Math.round(percent * 100) / 100,
      exceeded: percent !== null && percent >= 100,
      resets_at: windows.monthResetsAt.toISOString(),
      alerts: (row === undefined ? [] : thresholdsOf(row)).map((threshold) => {
        const crossed = percent !== null && percent >= threshold;
        return { threshold, crossed, crossed_at: crossed ? (recorded.get(threshold) ?? null) : null };
      }),
    };
  }
}
