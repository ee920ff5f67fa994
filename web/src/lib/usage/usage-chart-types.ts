/**
 * What a usage chart is given: its kind, its series of numbers, and the same numbers already
 * written out as a table (the chart's alternative for screen readers and keyboards).
 */

/** Bars along the days, bars along names (top assistants and users), or a half-circle gauge. */
export type UsageChartKind = 'bar' | 'horizontal-bar' | 'gauge';

export interface UsageSeries {
  label: string;
  values: number[];
  colour: 'primary' | 'secondary';
}

export interface ChartTable {
  columns: string[];
  /** Each row's first cell names it (a row header); the others are numbers, already formatted. */
  rows: string[][];
  /** What the table leaves out, said under it (days without use). */
  note?: string;
}
