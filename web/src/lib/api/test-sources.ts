/**
 * Where test cases come from besides the case editor (docs/assistant-tests.md): an answer a
 * learner rated, made into a case by the server, and cases the organization's small fast model
 * proposes, which are only shown until the teacher accepts one (POST …/tests). Through the typed
 * client only.
 */
import { answerOf, apiClient } from './client';
import type { JsonAnswer } from './json-answer';

export type TestSuggestions = JsonAnswer<'/api/assistants/{id}/test-suggestions', 'post'>;
export type ProposedCase = TestSuggestions['proposals'][number];
type CreatedCase = JsonAnswer<'/api/assistants/{id}/tests/from-answer', 'post'>;

/** Makes a test case of the rated answer (`message_id` of an item of the rated-answers listing). */
export async function addRatedAnswerAsTestCase(assistantId: number, messageId: number): Promise<CreatedCase> {
  return answerOf(
    apiClient.POST('/api/assistants/{id}/tests/from-answer', { params: { path: { id: assistantId } }, body: { message_id: messageId } }),
  );
}

/** Proposals of the small fast model; nothing is saved. */
export async function suggestTestCases(assistantId: number): Promise<TestSuggestions> {
  return answerOf(apiClient.POST('/api/assistants/{id}/test-suggestions', { params: { path: { id: assistantId } }, body: {} }));
}
