/**
 * An assistant's insights for whoever manages it (docs/assistant-insights.md): read from the
 * roll-ups chat answers add to when they are kept (answer-roll-up.ts), a few hundred rows per
 * request whatever the traffic, never the messages themselves. The permission module decides
 * who may see them; learners are counted, never named, and topics leave names out.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { requireAssistantInsights } from '../auth/permissions.js';
import { assistantFacts } from '../assistants/assistant-view.js';
import { AppError } from '../errors/app-error.js';
import {
  countDistinctItems,
  listInsightsDays,
  sumItems,
  INSIGHTS_DAILY_COUNTERS,
  type InsightsCounters,
  type InsightsDayRow,
  type InsightsRange,
} from '../store/assistant-insights-repository.js';
import { findAssistant } from '../store/assistants-repository.js';
import type { Database } from '../store/schema.js';
import { usageDays } from '../usage/usage-days.js';
import { answerTimeQuantile } from './answer-time-histogram.js';
import type { InsightsDay, InsightsQuery, InsightsView } from './insights-schemas.js';

export interface InsightsLimits {
  rangeDaysMaximum: number;
  topicsMaximum: number;
  topicQuestionsMinimum: number;
  sourcesMaximum: number;
}

export interface InsightsDependencies {
  db: Kysely<Database>;
  limits: InsightsLimits;
}

const DAY_MILLISECONDS = 86_400_000;
/** Answer times are read from at most 64 buckets; a bound on the rows the histogram query may return. */
const HISTOGRAM_BUCKETS_MAXIMUM = 64;

const NO_COUNTERS = Object.fromEntries(INSIGHTS_DAILY_COUNTERS.map((counter) => [counter, 0])) as InsightsCounters;

function daysOf(range: { from: string; to: string }): string[] {
  const days: string[] = [];
  for (let time = Date.parse(`${range.from}T00:00:00Z`); time <= Date.parse(`${range.to}T00:00:00Z`); time += DAY_MILLISECONDS)
    days.push(new Date(time).toISOString().slice(0, 10));
  return days;
}

/** A day's counters as the API shows them: the cost in dollars. */
function dayView(day: string, counters: InsightsCounters): InsightsDay {
  const { cost_micro_usd: cost, ...rest } = counters;
  return { day, ...rest, cost_usd: cost / 1_000_000 };
}

function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}

function summed(rows: readonly InsightsDayRow[]): InsightsCounters {
  const sums = { ...NO_COUNTERS };
  for (const row of rows) for (const counter of INSIGHTS_DAILY_COUNTERS) sums[counter] += row[counter];
  return sums;
}

export class InsightsService {
  constructor(private readonly dependencies: InsightsDependencies) {}

  async ofAssistant(context: CallContext, assistantId: number, query: InsightsQuery): Promise<InsightsView> {
    const { db, limits } = this.dependencies;
    const assistant = await findAssistant(db, assistantId, context.identity.userId);
    if (assistant === undefined) throw new AppError('not_found', 'Assistant not found.');
    requireAssistantInsights(context.identity, assistantFacts(assistant));
    const days = usageDays({ from: query.from, to: query.to, rangeDaysMaximum: limits.rangeDaysMaximum });
    const range: InsightsRange = { assistantId, ...days };
    const [rows, learners, buckets, sources, topics] = await Promise.all([
      listInsightsDays(db, range),
      countDistinctItems(db, range, 'learner'),
      sumItems(db, range, { kind: 'answer_time', limit: HISTOGRAM_BUCKETS_MAXIMUM, usesMinimum: 1 }),
      sumItems(db, range, { kind: 'source', limit: limits.sourcesMaximum, usesMinimum: 1 }),
      sumItems(db, range, { kind: 'topic', limit: limits.topicsMaximum, usesMinimum: limits.topicQuestionsMinimum }),
    ]);
    const byDay = new Map(rows.map((row) => [row.day, row]));
    const totals = summed(rows);
    const { day: _day, ...totalCounters } = dayView('', totals);
    return {
      assistant_id: assistantId,
      ...days,
      currency: 'USD',
      totals: {
        ...totalCounters,
        learners,
        messages: totals.questions + totals.answers,
        total_tokens: totals.prompt_tokens + totals.completion_tokens,
        feedback_ratio: ratio(totals.feedback_up, totals.feedback_up + totals.feedback_down),
        retrieval_empty_share: ratio(totals.retrieval_empty, totals.retrieval_questions),
        answer_time_median_ms: answerTimeQuantile(buckets, 0.5),
        answer_time_p95_ms: answerTimeQuantile(buckets, 0.95),
      },
      days: daysOf(days).map((day) => dayView(day, byDay.get(day) ?? NO_COUNTERS)),
      sources: sources.map((source) => ({ title: source.label ?? source.item, answers: source.uses })),
      topics: topics.map((topic) => ({ term: topic.item, questions: topic.uses })),
    };
  }
}
