/**
 * A test run in words, for the run choosers and the run's status line: its number, when it
 * started, whether it ran a studio draft, and how its cases came out.
 */
import type { TestRunSummary } from '$lib/api/assistant-tests';
import { currentLocale, t } from '$lib/i18n/translate.svelte';

function startedAt(run: TestRunSummary): string {
  return new Intl.DateTimeFormat(currentLocale(), { dateStyle: 'short', timeStyle: 'short' }).format(new Date(run.created_at));
}

export function runLabel(run: TestRunSummary): string {
  const label = t('assistantTests.runLabel', { id: run.id, when: startedAt(run), pass: run.verdicts.pass, total: run.case_count });
  return run.snapshot_source === 'draft' ? `${label} · ${t('assistantTests.draftMark')}` : label;
}

/** How long the run took, in seconds, from its start to its end (or to now while it runs). */
export function runSeconds(run: TestRunSummary): string {
  const end = run.finished_at === null ? Date.now() : new Date(run.finished_at).getTime();
  const seconds = Math.max(0, (end - new Date(run.created_at).getTime()) / 1000);
  return seconds.toLocaleString(currentLocale(), { maximumFractionDigits: 1 });
}
