/**
 * An assistant's test cases and runs (docs/assistant-tests.md) for the tests page: cases listed,
 * added, replaced and deleted, adversarial presets listed and added, runs estimated, started (of
 * the saved assistant or a studio draft), read, stopped, compared, and followed live over their
 * event stream (EventSource sends the session cookie). Every call goes through the typed client.
 */
import type { paths } from './generated/openapi';
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';
import type { RequestBody } from './request-body';

export type TestCase = JsonAnswer<'/api/assistants/{id}/tests', 'get'>['items'][number];
export type NewTestCase = RequestBody<'/api/assistants/{id}/tests', 'post'>;
export type Expectation = NewTestCase['expectations'][number];
export type TestRunInput = RequestBody<'/api/assistants/{id}/test-runs', 'post'>;
export type TestRunEstimate = JsonAnswer<'/api/assistants/{id}/test-runs/estimate', 'post'>;
export type TestResult = TestRun['results'][number];
export type AdversarialPreset = JsonAnswer<'/api/assistants/{id}/test-presets', 'get'>['presets'][number];
export type PresetKey = Extract<RequestBody<'/api/assistants/{id}/test-presets', 'post'>['keys'], unknown[]>[number];
export type TestRun = JsonAnswer<'/api/assistants/{id}/test-runs/{runId}', 'get'>;
export type TestRunSummary = JsonAnswer<'/api/assistants/{id}/test-runs', 'get'>['items'][number];
export type TestRunComparison = JsonAnswer<'/api/assistants/{id}/test-runs/compare', 'get'>;
type TestRunEvent = paths['/api/assistants/{id}/test-runs/{runId}/events']['get']['responses'][200]['content']['text/event-stream'];

const CASES_PAGE = 200;
/** The runs the page offers to show and compare: the newest ones. */
const RUNS_PAGE = 50;

export async function listTestCases(assistantId: number): Promise<TestCase[]> {
  const path = { id: assistantId };
  return (await answerOf(apiClient.GET('/api/assistants/{id}/tests', { params: { path, query: { limit: CASES_PAGE } } }))).items;
}

export async function createTestCase(assistantId: number, body: NewTestCase): Promise<TestCase> {
  return answerOf(apiClient.POST('/api/assistants/{id}/tests', { params: { path: { id: assistantId } }, body }));
}

export async function replaceTestCase(assistantId: number, caseId: number, body: NewTestCase): Promise<TestCase> {
  return answerOf(apiClient.PUT('/api/assistants/{id}/tests/{caseId}', { params: { path: { id: assistantId, caseId } }, body }));
}

export async function listPresets(assistantId: number): Promise<AdversarialPreset[]> {
  return (await answerOf(apiClient.GET('/api/assistants/{id}/test-presets', { params: { path: { id: assistantId } } }))).presets;
}

export async function addPresets(assistantId: number, keys: PresetKey[]): Promise<TestCase[]> {
  const body = { keys };
  return (await answerOf(apiClient.POST('/api/assistants/{id}/test-presets', { params: { path: { id: assistantId } }, body }))).cases;
}

export async function deleteTestCase(assistantId: number, caseId: number): Promise<void> {
  await answerOf(apiClient.DELETE('/api/assistants/{id}/tests/{caseId}', { params: { path: { id: assistantId, caseId } } }));
}

export async function estimateTestRun(assistantId: number, body: TestRunInput): Promise<TestRunEstimate> {
  return answerOf(apiClient.POST('/api/assistants/{id}/test-runs/estimate', { params: { path: { id: assistantId } }, body }));
}

export async function startTestRun(assistantId: number, body: TestRunInput): Promise<TestRun> {
  return answerOf(apiClient.POST('/api/assistants/{id}/test-runs', { params: { path: { id: assistantId } }, body }));
}

export async function readTestRun(assistantId: number, runId: number): Promise<TestRun> {
  return answerOf(apiClient.GET('/api/assistants/{id}/test-runs/{runId}', { params: { path: { id: assistantId, runId } } }));
}

export async function listTestRuns(assistantId: number): Promise<TestRunSummary[]> {
  const path = { id: assistantId };
  return (await answerOf(apiClient.GET('/api/assistants/{id}/test-runs', { params: { path, query: { limit: RUNS_PAGE } } }))).items;
}

export async function stopTestRun(assistantId: number, runId: number): Promise<TestRun> {
  return answerOf(apiClient.POST('/api/assistants/{id}/test-runs/{runId}/stop', { params: { path: { id: assistantId, runId } } }));
}

export async function compareTestRuns(assistantId: number, base: number, head: number): Promise<TestRunComparison> {
  const path = { id: assistantId };
  return answerOf(apiClient.GET('/api/assistants/{id}/test-runs/compare', { params: { path, query: { base, head } } }));
}

/** Follows the run until its `end` event; the returned function stops following. */
export function followTestRun(assistantId: number, runId: number, onEvent: (event: TestRunEvent) => void): () => void {
  const path = ('/api/assistants/{id}/test-runs/{runId}/events' satisfies keyof paths)
    .replace('{id}', String(assistantId))
    .replace('{runId}', String(runId));
  const source = new EventSource(path);
  source.addEventListener('message', (message: MessageEvent<string>) => {
    const event = JSON.parse(message.data) as TestRunEvent;
    onEvent(event);
    if (event.type === 'end') source.close();
  });
  source.addEventListener('error', () => source.close());
  return () => source.close();
}
