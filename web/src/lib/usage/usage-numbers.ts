/**
 * How usage numbers read on the pages, in the reader's language: whole tokens and requests with
 * grouping, dollars with cents and, for the tiny costs of a few requests, up to six decimals.
 */
import { currentLocale } from '$lib/i18n/translate.svelte';

export function formatCount(value: number): string {
  return new Intl.NumberFormat(currentLocale(), { maximumFractionDigits: 0 }).format(value);
}

export function formatCost(value: number): string {
  return new Intl.NumberFormat(currentLocale(), {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 6,
  }).format(value);
}

/** A share of a limit as a whole percentage ("42 %" in the reader's style). */
export function formatShare(used: number, limit: number): string {
  return new Intl.NumberFormat(currentLocale(), { style: 'percent', maximumFractionDigits: 0 }).format(limit > 0 ? used / limit : 0);
}
