/**
 * Turns usage reports into what UsageChart draws: for each chart its heading, series, the
 * one-sentence summary the canvas is named by, and the table with the same numbers. Shared by the
 * usage page and the assistant's usage panel, so a number reads the same in both.
 */
import type { UsageGroup } from '$lib/api/usage';
import { t } from '$lib/i18n/translate.svelte';
import type { ChartTable, UsageChartKind, UsageSeries } from './usage-chart-types';
import { formatCost, formatCount, formatShare } from './usage-numbers';
import type { UsagePeriod } from './usage-period';

/** The props of one UsageChart but its heading level. */
export interface UsageChartInput {
  heading: string;
  kind: UsageChartKind;
  labels: string[];
  series: UsageSeries[];
  summary: string;
  table: ChartTable;
  formatValue: (value: number) => string;
}

/** How the top assistants and people are ranked. */
export type RankMeasure = 'tokens' | 'cost';

/** How many assistants or people a top chart shows: more would not read as bars on a phone. */
const TOP_COUNT = 10;

function busiest(days: UsageGroup[], value: (day: UsageGroup) => number): string {
  return days.reduce((best, day) => (value(day) > value(best) ? day : best)).key;
}

/** The table lists the days with use: a month of zero rows would bury them for whoever listens. */
function daysWithUse(days: UsageGroup[]): UsageGroup[] {
  return days.filter((day) => day.requests > 0);
}

/** Prompt and completion tokens per day, stacked. `days` has every day of the period. */
export function tokensPerDay(period: UsagePeriod, days: UsageGroup[]): UsageChartInput {
  const prompt = days.reduce((sum, day) => sum + day.prompt_tokens, 0);
  const completion = days.reduce((sum, day) => sum + day.completion_tokens, 0);
  return {
    heading: t('usage.tokensPerDay'),
    kind: 'bar',
    labels: days.map((day) => day.key),
    series: [
      { label: t('usage.promptTokens'), values: days.map((day) => day.prompt_tokens), colour: 'primary' },
      { label: t('usage.completionTokens'), values: days.map((day) => day.completion_tokens), colour: 'secondary' },
    ],
    summary: t('usage.tokensPerDaySummary', {
      ...period,
      total: formatCount(prompt + completion),
      prompt: formatCount(prompt),
      completion: formatCount(completion),
      busiest: busiest(days, (day) => day.total_tokens),
    }),
    table: {
      columns: [t('usage.day'), t('usage.requests'), t('usage.promptTokens'), t('usage.completionTokens'), t('usage.totalTokens')],
      rows: daysWithUse(days).map((day) => [
        day.key,
        formatCount(day.requests),
        formatCount(day.prompt_tokens),
        formatCount(day.completion_tokens),
        formatCount(day.total_tokens),
      ]),
      note: t('usage.quietDaysLeftOut'),
    },
    formatValue: formatCount,
  };
}

export function costPerDay(period: UsagePeriod, days: UsageGroup[]): UsageChartInput {
  const total = days.reduce((sum, day) => sum + day.cost_usd, 0);
  return {
    heading: t('usage.costPerDay'),
    kind: 'bar',
    labels: days.map((day) => day.key),
    series: [{ label: t('usage.cost'), values: days.map((day) => day.cost_usd), colour: 'primary' }],
    summary: t('usage.costPerDaySummary', { ...period, total: formatCost(total), busiest: busiest(days, (day) => day.cost_usd) }),
    table: {
      columns: [t('usage.day'), t('usage.requests'), t('usage.cost')],
      rows: daysWithUse(days).map((day) => [day.key, formatCount(day.requests), formatCost(day.cost_usd)]),
      note: t('usage.quietDaysLeftOut'),
    },
    formatValue: formatCost,
  };
}

export interface TopChartOptions {
  heading: string;
  /** The table's first column: "Assistant" or "Person". */
  nameColumn: string;
  /** The name of a row whose label the caller may not see (or that was deleted). */
  unnamed: (id: string) => string;
  measure: RankMeasure;
}

/** The most used assistants or people (the report's groups), ranked by tokens or cost. */
export function topGroups(groups: UsageGroup[], options: TopChartOptions): UsageChartInput {
  const value = (group: UsageGroup): number => (options.measure === 'tokens' ? group.total_tokens : group.cost_usd);
  const top = [...groups].sort((first, second) => value(second) - value(first)).slice(0, TOP_COUNT);
  const names = top.map((group) => group.label ?? options.unnamed(group.key));
  const formatValue = options.measure === 'tokens' ? formatCount : formatCost;
  const measureName = options.measure === 'tokens' ? t('usage.totalTokens') : t('usage.cost');
  return {
    heading: options.heading,
    kind: 'horizontal-bar',
    labels: names,
    series: [{ label: measureName, values: top.map(value), colour: 'primary' }],
    summary: t('usage.topSummary', {
      heading: options.heading,
      measure: measureName.toLowerCase(),
      first: names[0] ?? '',
      value: top[0] ? formatValue(value(top[0])) : '',
      count: top.length,
    }),
    table: {
      columns: [options.nameColumn, t('usage.requests'), t('usage.totalTokens'), t('usage.cost')],
      rows: top.map((group, index) => [
        names[index] ?? '',
        formatCount(group.requests),
        formatCount(group.total_tokens),
        formatCost(group.cost_usd),
      ]),
    },
    formatValue,
  };
}

export interface GaugeOptions {
  heading: string;
  /** The row's name in the table: the period measured ("This month"). */
  period: string;
  used: number;
  limit: number;
  formatValue: (value: number) => string;
}

/** A half-circle gauge of what was used against a limit. */
export function gauge(options: GaugeOptions): UsageChartInput {
  const { heading, used, limit, formatValue } = options;
  const share = formatShare(used, limit);
  return {
    heading,
    kind: 'gauge',
    labels: [t('usage.used'), t('usage.remaining')],
    series: [
      { label: heading, values: [Math.min(used, limit), Math.max(limit - used, 0)], colour: used >= limit ? 'secondary' : 'primary' },
    ],
    summary: t('usage.gaugeSummary', { heading, used: formatValue(used), limit: formatValue(limit), share }),
    table: {
      columns: [t('usage.periodLegend'), t('usage.used'), t('usage.limit'), t('usage.shareOfLimit')],
      rows: [[options.period, formatValue(used), formatValue(limit), share]],
    },
    formatValue,
  };
}
