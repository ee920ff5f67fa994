/**
 * `merino usage --from <day> --to <day>`: a table of requests, prompt and completion tokens per
 * day, user or assistant for a period, read from usage_logs; for the whole server or one
 * organization. The command line acts as the system, which may see every organization's use.
 */
import { usageOfPeriod, type UsageGrouping, type UsagePeriodRow } from '../store/usage-period-repository.js';
import { CommandUsageError, requiredOption, stringOption, type AdminCommand } from './admin-command.js';
import { organizationNamed } from './command-session.js';

const GROUPINGS: readonly UsageGrouping[] = ['day', 'user', 'assistant'];
const DAY_SHAPE = /^\d{4}-\d{2}-\d{2}$/;

function day(value: string, option: string): string {
  if (
    !DAY_SHAPE.test(value) ||
    Number.isNaN(Date.parse(`${value}T00:00:00Z`)) ||
    new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value
  ) {
    throw new CommandUsageError(`--${option} must be a day written YYYY-MM-DD, such as 2027-01-31.`);
  }
  return value;
}

/** The rows as a table with aligned columns and a total line. */
function table(heading: string, rows: readonly UsagePeriodRow[]): string[] {
  const total = rows.reduce(
    (sum, row) => ({
      group: 'total',
      requests: sum.requests + row.requests,
      promptTokens: sum.promptTokens + row.promptTokens,
      completionTokens: sum.completionTokens + row.completionTokens,
    }),
    { group: 'total', requests: 0, promptTokens: 0, completionTokens: 0 },
  );
  const cells = [heading, 'requests', 'prompt tokens', 'completion tokens'];
  const lines = [...rows, total].map((row) => [row.group, String(row.requests), String(row.promptTokens), String(row.completionTokens)]);
  const widths = cells.map((cell, column) => Math.max(cell.length, ...lines.map((line) => line[column]!.length)));
  const render = (line: readonly string[]): string =>
    line.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  return [render(cells), ...lines.slice(0, -1).map(render), widths.map((width) => '-'.repeat(width)).join('  '), render(lines.at(-1)!)];
}

export const usageCommand: AdminCommand = {
  name: 'usage',
  summary: 'print requests and tokens per day, user or assistant for a period',
  options: {
    from: { type: 'string', value: '<YYYY-MM-DD>', description: 'the first day (UTC)', required: true },
    to: { type: 'string', value: '<YYYY-MM-DD>', description: 'the last day (UTC), included', required: true },
    by: { type: 'string', value: '<day|user|assistant>', description: 'one line per day (the default), user or assistant' },
    organization: { type: 'string', value: '<slug|id>', description: "only this organization's use" },
  },
  async run(session, commandLine) {
    const from = day(requiredOption(commandLine, 'from'), 'from');
    const to = day(requiredOption(commandLine, 'to'), 'to');
    if (to < from) throw new CommandUsageError('--to must not be before --from.');
    const groupBy = (stringOption(commandLine, 'by') ?? 'day') as UsageGrouping;
    if (!GROUPINGS.includes(groupBy)) throw new CommandUsageError(`--by must be one of ${GROUPINGS.join(', ')}.`);
    const organizationReference = stringOption(commandLine, 'organization');
    const organization = organizationReference === undefined ? undefined : await organizationNamed(session.store, organizationReference);
    const rows = await usageOfPeriod(session.store.db, { from, to, groupBy, organizationId: organization?.id });
    session.print(
      `Usage from ${from} to ${to}${organization === undefined ? ', all organizations' : `, organization ${organization.slug}`}:`,
    );
    for (const line of table(groupBy, rows)) session.print(line);
    return 0;
  },
};
