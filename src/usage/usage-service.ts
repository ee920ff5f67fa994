/**
 * Usage reports and model prices (docs/usage.md). A report reads only the daily roll-up, never
 * usage_logs, over at most USAGE_RANGE_DAYS_MAX days, within the scope the permission module
 * gives the caller; CSV is the same report as text. Model prices are an organization's own table
 * over the declared defaults, managed by its admins, each change audited in its transaction.
 */
import type { Kysely } from 'kysely';
import { auditEntryOf, type CallContext } from '../auth/call-context.js';
import { mayNameUsersInUsage, requireOrganizationAdministration, usageScope } from '../auth/permissions.js';
import { AppError } from '../errors/app-error.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { listModelPrices, replaceModelPrices } from '../store/model-prices-repository.js';
import { findOrganizationById } from '../store/organizations-repository.js';
import type { Dialect } from '../store/dialect.js';
import type { Database } from '../store/schema.js';
import {
  readUsageGroups,
  readUsageLabels,
  readUsageTotals,
  type UsageGroupRow,
  type UsageReportQuery,
  type UsageSums,
} from '../store/usage-daily-repository.js';
import { DEFAULT_MODEL_PRICES, DEFAULT_PRICES_AS_OF } from './default-model-prices.js';
import { usageDays } from './usage-days.js';
import type { ModelPricesInput, ModelPricesView, UsageQuery, UsageReport } from './usage-schemas.js';

export interface UsageServiceOptions {
  db: Kysely<Database>;
  dialect: Dialect;
  rangeDaysMaximum: number;
  groupsMaximum: number;
  /** Writes the usage rows this process still holds, so a report includes its own latest requests. */
  flushRecords: () => Promise<void>;
}

type Sums = UsageReport['totals'];

function sumsView(sums: UsageSums): Sums {
  return {
    requests: sums.requests,
    prompt_tokens: sums.prompt_tokens,
    completion_tokens: sums.completion_tokens,
    total_tokens: sums.prompt_tokens + sums.completion_tokens,
    cost_usd: sums.cost_micro_usd / 1_000_000,
  };
}

export class UsageService {
  constructor(private readonly options: UsageServiceOptions) {}

  async report(context: CallContext, query: UsageQuery): Promise<UsageReport> {
    const { db, dialect, groupsMaximum, rangeDaysMaximum, flushRecords } = this.options;
    const scope = usageScope(context.identity, query.organization_id);
    const { from, to } = usageDays({ from: query.from, to: query.to, rangeDaysMaximum });
    const groupBy = query.group_by ?? 'day';
    const reportQuery: UsageReportQuery = {
      dialect,
      scope,
      from,
      to,
      groupBy,
      assistantId: query.assistant_id,
      userId: query.user_id,
      groupsMaximum,
    };
    await flushRecords();
    const [groups, totals] = await Promise.all([readUsageGroups(db, reportQuery), readUsageTotals(db, reportQuery)]);
    const shown = groups.slice(0, groupsMaximum);
    const labels = await this.labelsFor(context, reportQuery, shown);
    return {
      from,
      to,
      group_by: groupBy,
      currency: 'USD',
      groups: shown.map((group) => ({ key: group.key, label: labels.get(group.key) ?? null, ...sumsView(group) })),
      totals: sumsView(totals),
      truncated: groups.length > groupsMaximum,
    };
  }

  /** Assistants' names for everyone in scope; people's names for admins over them, and one's own. */
  private async labelsFor(context: CallContext, query: UsageReportQuery, groups: readonly UsageGroupRow[]): Promise<Map<string, string>> {
    if (query.groupBy !== 'user' && query.groupBy !== 'assistant') return new Map();
    const ids = groups
      .map((group) => Number(group.key))
      .filter((id) => query.groupBy === 'assistant' || mayNameUsersInUsage(query.scope) || id === context.identity.userId);
    const names = await readUsageLabels(this.options.db, query.groupBy === 'user' ? 'users' : 'assistants', ids);
    return new Map([...names].map(([id, name]) => [String(id), name]));
  }

  async modelPrices(context: CallContext, organizationId: number): Promise<ModelPricesView> {
    requireOrganizationAdministration(context.identity, organizationId);
    await this.requireOrganization(organizationId);
    const own = await listModelPrices(this.options.db, [organizationId]);
    const ownModels = new Set(own.map((price) => price.model));
    const prices = [
      ...own.map(({ model, input_usd_per_million, output_usd_per_million }) => ({
        model,
        input_usd_per_million,
        output_usd_per_million,
        source: 'organization' as const,
      })),
      ...DEFAULT_MODEL_PRICES.filter((price) => !ownModels.has(price.model)).map((price) => ({ ...price, source: 'default' as const })),
    ].sort((first, second) => first.model.localeCompare(second.model));
    return { currency: 'USD', defaults_as_of: DEFAULT_PRICES_AS_OF, prices };
  }

  /** Replaces the organization's own prices; usage already counted keeps the price it was counted at. */
  async replaceModelPrices(context: CallContext, organizationId: number, input: ModelPricesInput): Promise<ModelPricesView> {
    requireOrganizationAdministration(context.identity, organizationId);
    await this.requireOrganization(organizationId);
    const models = input.prices.map((price) => price.model.trim());
    const repeated = models.find((model, index) => models.indexOf(model) !== index);
    if (repeated !== undefined)
      throw new AppError('invalid_body', `The model "${repeated.slice(0, 200)}" is priced twice.`, { param: 'prices' });
    const prices = input.prices.map((price, index) => ({ ...price, model: models[index]! }));
    await this.options.db.transaction().execute(async (transaction) => {
      await replaceModelPrices(transaction, organizationId, prices);
      await appendAuditEntry(
        transaction,
        auditEntryOf(context, { type: 'organization', id: organizationId, organizationId }, 'model_prices.replaced', {
          models: prices.length,
        }),
      );
    });
    return this.modelPrices(context, organizationId);
  }

  private async requireOrganization(organizationId: number): Promise<void> {
    if ((await findOrganizationById(this.options.db, organizationId)) === undefined)
      throw new AppError('not_found', 'Organization not found.');
  }
}
