/**
 * A usage report as CSV (RFC 4180): a header row, one row per group, and a last row of totals
 * keyed `total`. Fields that could start a spreadsheet formula are prefixed with a quote, since
 * labels are names people chose.
 */
import type { UsageReport } from './usage-schemas.js';

const COLUMNS = ['group_by', 'key', 'label', 'requests', 'prompt_tokens', 'completion_tokens', 'total_tokens', 'cost_usd'] as const;

function field(value: string | number | null): string {
  let text = value === null ? '' : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function usageCsv(report: UsageReport): string {
  const rows = [
    ...report.groups.map((group) => ({ group_by: report.group_by, ...group })),
    { group_by: report.group_by, key: 'total', label: null, ...report.totals },
  ];
  const lines = [COLUMNS.join(','), ...rows.map((row) => COLUMNS.map((column) => field(row[column])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}
