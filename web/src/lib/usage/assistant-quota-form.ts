/**
 * Reads the assistant quota form's two fields into what `PUT /api/assistants/{id}/quota` takes:
 * an empty limit removes it, thresholds are whole percents separated by commas. Only what cannot
 * be sent at all is refused here; ranges (a negative limit, 0 or 101 %) are the API's to refuse,
 * and its messages show at the same fields.
 */
import type { AssistantQuota, AssistantQuotaChange } from '$lib/api/assistant-quota';
import type { FieldErrors } from '$lib/api/field-errors';
import { t } from '$lib/i18n/translate.svelte';

export interface QuotaFormText {
  limit: string;
  thresholds: string;
}

export type QuotaFormReading = { change: AssistantQuotaChange } | { errors: FieldErrors };

export function formTextOf(quota: AssistantQuota): QuotaFormText {
  return {
    limit: quota.cost_per_month_usd === null ? '' : String(quota.cost_per_month_usd),
    thresholds: quota.alert_thresholds.join(', '),
  };
}

function limitOf(text: string): number | null | undefined {
  const trimmed = text.trim().replace(/^\$/, '');
  if (trimmed === '') return null;
  const amount = Number(trimmed);
  return Number.isFinite(amount) ? amount : undefined;
}

function thresholdsOf(text: string): number[] | undefined {
  const parts = text
    .split(',')
    .map((part) => part.trim().replace(/%$/, '').trim())
    .filter((part) => part !== '');
  return parts.every((part) => /^-?\d+$/.test(part)) ? parts.map(Number) : undefined;
}

export function readQuotaForm(text: QuotaFormText): QuotaFormReading {
  const limit = limitOf(text.limit);
  const thresholds = thresholdsOf(text.thresholds);
  const errors: FieldErrors = {};
  if (limit === undefined) errors.cost_per_month_usd = t('usage.quotaLimitInvalid');
  if (thresholds === undefined) errors.alert_thresholds = t('usage.quotaThresholdsInvalid');
  if (limit === undefined || thresholds === undefined) return { errors };
  return { change: { cost_per_month_usd: limit, alert_thresholds: thresholds } };
}
