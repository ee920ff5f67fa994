/**
 * Turns an assistant's insights into what UsageChart draws (the house chart, a table behind each):
 * messages and ratings per day, the most used sources and the most frequent question topics, each
 * with the one-sentence summary its canvas is named by.
 */
import type { Insights, InsightsDay } from '$lib/api/insights';
import { t } from '$lib/i18n/translate.svelte';
import type { UsageChartInput } from '$lib/usage/usage-charts';
import { formatCount } from '$lib/usage/usage-numbers';

/** Counts are whole: an axis tick between two whole numbers gets no label rather than a rounded repeat. */
function wholeCount(value: number): string {
  return Number.isInteger(value) ? formatCount(value) : '';
}

function busiest(days: InsightsDay[]): string {
  return days.reduce((best, day) => (day.questions + day.answers > best.questions + best.answers ? day : best)).day;
}

/** The table lists the days with questions: a month of zero rows would bury them for whoever listens. */
function daysWithQuestions(days: InsightsDay[]): InsightsDay[] {
  return days.filter((day) => day.questions + day.answers + day.feedback_up + day.feedback_down > 0);
}

export function messagesPerDay(insights: Insights): UsageChartInput {
  const { days } = insights;
  return {
    heading: t('insights.messagesPerDay'),
    kind: 'bar',
    labels: days.map((day) => day.day),
    series: [
      { label: t('insights.questions'), values: days.map((day) => day.questions), colour: 'primary' },
      { label: t('insights.answers'), values: days.map((day) => day.answers), colour: 'secondary' },
    ],
    summary: t('insights.messagesPerDaySummary', {
      total: formatCount(insights.totals.messages),
      from: insights.from,
      to: insights.to,
      busiest: busiest(days),
    }),
    table: {
      columns: [t('insights.day'), t('insights.questions'), t('insights.answers'), t('insights.chats')],
      rows: daysWithQuestions(days).map((day) => [day.day, formatCount(day.questions), formatCount(day.answers), formatCount(day.chats)]),
      note: t('insights.quietDaysLeftOut'),
    },
    formatValue: wholeCount,
  };
}

export function ratingsPerDay(insights: Insights): UsageChartInput {
  const { days } = insights;
  return {
    heading: t('insights.feedbackPerDay'),
    kind: 'bar',
    labels: days.map((day) => day.day),
    series: [
      { label: t('insights.thumbsUp'), values: days.map((day) => day.feedback_up), colour: 'primary' },
      { label: t('insights.thumbsDown'), values: days.map((day) => day.feedback_down), colour: 'secondary' },
    ],
    summary: t('insights.feedbackPerDaySummary', {
      up: formatCount(insights.totals.feedback_up),
      down: formatCount(insights.totals.feedback_down),
      from: insights.from,
      to: insights.to,
    }),
    table: {
      columns: [t('insights.day'), t('insights.thumbsUp'), t('insights.thumbsDown')],
      rows: daysWithQuestions(days).map((day) => [day.day, formatCount(day.feedback_up), formatCount(day.feedback_down)]),
      note: t('insights.quietDaysLeftOut'),
    },
    formatValue: wholeCount,
  };
}

/** The most used sources as bars along their titles; undefined when no answer used one. */
export function topSources(insights: Insights): UsageChartInput | undefined {
  const [first] = insights.sources;
  if (first === undefined) return undefined;
  return {
    heading: t('insights.sourcesHeading'),
    kind: 'horizontal-bar',
    labels: insights.sources.map((source) => source.title),
    series: [{ label: t('insights.answersWithIt'), values: insights.sources.map((source) => source.answers), colour: 'primary' }],
    summary: t('insights.sourcesSummary', { first: first.title, answers: formatCount(first.answers) }),
    table: {
      columns: [t('insights.source'), t('insights.answersWithIt')],
      rows: insights.sources.map((source) => [source.title, formatCount(source.answers)]),
    },
    formatValue: wholeCount,
  };
}

/** The most frequent question topics as bars; undefined when no term came up often enough. */
export function topTopics(insights: Insights): UsageChartInput | undefined {
  const [first] = insights.topics;
  if (first === undefined) return undefined;
  return {
    heading: t('insights.topicsHeading'),
    kind: 'horizontal-bar',
    labels: insights.topics.map((topic) => topic.term),
    series: [{ label: t('insights.questionsWithIt'), values: insights.topics.map((topic) => topic.questions), colour: 'primary' }],
    summary: t('insights.topicsSummary', { first: first.term, questions: formatCount(first.questions) }),
    table: {
      columns: [t('insights.topic'), t('insights.questionsWithIt')],
      rows: insights.topics.map((topic) => [topic.term, formatCount(topic.questions)]),
      note: t('insights.topicsNote'),
    },
    formatValue: wholeCount,
  };
}
