/**
 * An assistant's insights as CSV (RFC 4180): a header row, one row per day of the range, and a
 * last row of totals keyed `total`. Sources and topics stay in the JSON answer; the rows hold
 * only numbers and days, so no field can start a spreadsheet formula.
 */
import type { InsightsView } from './insights-schemas.js';

const COLUMNS = [
  'day',
  'chats',
  'questions',
  'answers',
  'prompt_tokens',
  'completion_tokens',
  'cost_usd',
  'tool_calls',
  'tool_failures',
  'feedback_up',
  'feedback_down',
  'retrieval_questions',
  'retrieval_empty',
] as const;

export function insightsCsv(insights: InsightsView): string {
  const rows = [...insights.days, { ...insights.totals, day: 'total' }].map((row) =>
    COLUMNS.map((column) => String(row[column])).join(','),
  );
  return `${[COLUMNS.join(','), ...rows].join('\r\n')}\r\n`;
}
