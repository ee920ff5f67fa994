/**
 * `merino usage --from <day> --to <day>`: a table of requests, prompt and completion tokens and
 * cost per day, user, assistant or model for a period, for the whole server or one organization.
 * It reads the same roll-ups as `GET /api/usage` (docs/usage.md), so both give the same numbers,
 * and a year of a large server is summed without reading its usage rows. The command line acts
 * as the system, which may see every organization's use.
 */
import type { UsageScope } from '../store/list-scopes.js';
import {
  readUsageEmails,
  readUsageGroups,
  readUsageLabels,
  readUsageTotals,
  type UsageGrouping,
  type UsageGroupRow,
  type UsageReportQuery,
  type UsageSums,
} from '../store/usage-daily-repository.js';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { CommandUsageError, requiredOption, stringOption, type AdminCommand } from './admin-command.js';
import { organizationNamed } from './command-session.js';

const GROUPINGS: readonly UsageGrouping[] = ['day', 'user', 'assistant', 'model'];
/** A script wants every line; the bound only keeps one command from holding a whole table in memory. */
const LINES_MAXIMUM = 100_000;
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

interface UsageLine extends UsageSums {
  group: string;
}

function dollars(costMicroUsd: number): string {
  return `$${(costMicroUsd / 1_000_000).toFixed(6)}`;
}

/** The lines as a table with aligned columns and a total line. */
function table(heading: string, lines: readonly UsageLine[]): string[] {
  const cells = [heading, 'requests', 'prompt tokens', 'completion tokens', 'cost'];
  const texts = lines.map((line) => [
    line.group,
    String(line.requests),
    String(line.prompt_tokens),
    String(line.completion_tokens),
    dollars(line.cost_micro_usd),
  ]);
  const widths = cells.map((cell, column) => Math.max(cell.length, ...texts.map((text) => text[column]!.length)));
  const render = (line: readonly string[]): string =>
    line.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
  return [render(cells), ...texts.slice(0, -1).map(render), widths.map((width) => '-'.repeat(width)).join('  '), render(texts.at(-1)!)];
}

/** What a line is called: the day or model itself, a person's email, an assistant's name with its id. */
async function labelled(db: Kysely<Database>, groupBy: UsageGrouping, groups: readonly UsageGroupRow[]): Promise<UsageLine[]> {
  const ids = groups.map((group) => Number(group.key));
  if (groupBy === 'user') {
    const emails = await readUsageEmails(db, ids);
    return groups.map((group) => ({ ...group, group: emails.get(Number(group.key)) ?? `user ${group.key}` }));
  }
  if (groupBy === 'assistant') {
    const names = await readUsageLabels(db, 'assistants', ids);
    return groups.map((group) => ({ ...group, group: `${names.get(Number(group.key)) ?? 'assistant'} (${group.key})` }));
  }
  return groups.map((group) => ({ ...group, group: group.key }));
}

export const usageCommand: AdminCommand = {
  name: 'usage',
  summary: 'print requests, tokens and cost per day, user, assistant or model for a period',
  options: {
    from: { type: 'string', value: '<YYYY-MM-DD>', description: 'the first day (UTC)', required: true },
    to: { type: 'string', value: '<YYYY-MM-DD>', description: 'the last day (UTC), included', required: true },
    by: { type: 'string', value: '<day|user|assistant|model>', description: 'one line per day (the default), user, assistant or model' },
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
    const scope: UsageScope = organization === undefined ? { kind: 'all' } : { kind: 'organization', organizationId: organization.id };
    const query: UsageReportQuery = { dialect: session.store.dialect, scope, from, to, groupBy, groupsMaximum: LINES_MAXIMUM };
    const db = session.store.db;
    const [groups, totals] = await Promise.all([readUsageGroups(db, query), readUsageTotals(db, query)]);
    const lines = await labelled(db, groupBy, groups.slice(0, LINES_MAXIMUM));
    session.print(
      `Usage from ${from} to ${to}${organization === undefined ? ', all organizations' : `, organization ${organization.slug}`}:`,
    );
    for (const line of table(groupBy, [...lines, { group: 'total', ...totals }])) session.print(line);
    return 0;
  },
};
