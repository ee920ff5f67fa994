/**
 * An assistant's test cases (docs/assistant-tests.md): create, list, read, replace and delete
 * them, and add the built-in adversarial presets in one call. Only whoever manages the assistant
 * may (requireAssistantTesting in the permission module); everyone else gets 404. Each write and
 * its audit entry go in one transaction; adding cases counts them under a lock on the assistant's
 * row (lockAssistantTests), so TEST_CASES_PER_ASSISTANT_MAX holds under races on both dialects.
 */
import type { Kysely } from 'kysely';
import type { CallContext } from '../auth/call-context.js';
import { assistantChatsScope, requireAssistantTesting } from '../auth/permissions.js';
import { assistantAuditEntry } from '../assistants/assistant-records.js';
import { assistantFacts } from '../assistants/assistant-view.js';
import { AppError } from '../errors/app-error.js';
import { findScopedFeedback } from '../store/answer-feedback-repository.js';
import { findAssistant, type AssistantRecord } from '../store/assistants-repository.js';
import {
  countTestCases,
  deleteTestCase,
  findTestCase,
  insertTestCases,
  listTestCases,
  lockAssistantTests,
  updateTestCase,
  type TestCaseRow,
} from '../store/assistant-tests-repository.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { listMessages } from '../store/chats-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import type { PageBounds } from '../validation/page-query-schema.js';
import { ADVERSARIAL_PRESETS } from './adversarial-presets.js';
import type {
  AddPresetsInput,
  AdversarialPreset,
  CaseFromAnswerInput,
  TestCaseInput,
  TestCaseLimits,
  TestCaseView,
} from './assistant-test-schemas.js';
import { caseFromRatedAnswer } from './case-from-rated-answer.js';
import { branchTo } from '../chats/message-tree.js';
import type { Expectation } from './expectation-schemas.js';

/** The assistant, when the caller may manage its tests; 404 otherwise. */
export async function loadTestableAssistant(db: Kysely<Database>, context: CallContext, assistantId: number): Promise<AssistantRecord> {
  const record = await findAssistant(db, assistantId, context.identity.userId);
  if (!record) throw new AppError('not_found', 'Assistant not found.');
  requireAssistantTesting(context.identity, assistantFacts(record));
  return record;
}

export function testCaseView(row: TestCaseRow): TestCaseView {
  return {
    id: row.id,
    assistant_id: row.assistant_id,
    name: row.name,
    kind: row.kind as TestCaseView['kind'],
    turns: JSON.parse(row.turns) as string[],
    expectations: JSON.parse(row.expectations) as Expectation[],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export class TestCaseService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly casesPerAssistantMaximum: number,
    private readonly caseLimits: TestCaseLimits,
  ) {}

  async create(context: CallContext, assistantId: number, input: TestCaseInput): Promise<TestCaseView> {
    const [created] = await this.insert(context, assistantId, [input]);
    return created!;
  }

  async list(context: CallContext, assistantId: number, page: PageBounds): Promise<{ items: TestCaseView[]; total: number }> {
    await loadTestableAssistant(this.db, context, assistantId);
    const listed = await listTestCases(this.db, assistantId, page);
    return { items: listed.items.map(testCaseView), total: listed.total };
  }

  async get(context: CallContext, assistantId: number, caseId: number): Promise<TestCaseView> {
    await loadTestableAssistant(this.db, context, assistantId);
    return testCaseView(await this.requireCase(this.db, assistantId, caseId));
  }

  async replace(context: CallContext, assistantId: number, caseId: number, input: TestCaseInput): Promise<TestCaseView> {
    const record = await loadTestableAssistant(this.db, context, assistantId);
    await this.db.transaction().execute(async (transaction) => {
      await this.requireCase(transaction, assistantId, caseId);
      await updateTestCase(transaction, caseId, {
        name: input.name,
        kind: input.kind,
        turns: JSON.stringify(input.turns),
        expectations: JSON.stringify(input.expectations),
        updated_at: nowTimestamp(),
      });
      await appendAuditEntry(transaction, assistantAuditEntry(context, record, 'assistant.test_case_update', { case_id: caseId }));
    });
    return testCaseView(await this.requireCase(this.db, assistantId, caseId));
  }

  async delete(context: CallContext, assistantId: number, caseId: number): Promise<void> {
    const record = await loadTestableAssistant(this.db, context, assistantId);
    await this.db.transaction().execute(async (transaction) => {
      await this.requireCase(transaction, assistantId, caseId);
      await deleteTestCase(transaction, caseId);
      await appendAuditEntry(transaction, assistantAuditEntry(context, record, 'assistant.test_case_delete', { case_id: caseId }));
    });
  }

  async presets(context: CallContext, assistantId: number): Promise<AdversarialPreset[]> {
    await loadTestableAssistant(this.db, context, assistantId);
    return [...ADVERSARIAL_PRESETS];
  }

  /** Adds the chosen presets (every preset when `keys` is "all") as adversarial cases of the assistant. */
  async addPresets(context: CallContext, assistantId: number, input: AddPresetsInput): Promise<TestCaseView[]> {
    const chosen = ADVERSARIAL_PRESETS.filter((preset) => input.keys === 'all' || input.keys.includes(preset.key as never));
    return this.insert(
      context,
      assistantId,
      chosen.map((preset) => ({ name: preset.name, kind: 'adversarial', turns: preset.turns, expectations: preset.expectations })),
    );
  }

  /**
   * Makes a case of an answer a learner rated, under exactly the rule of the rated-answers listing
   * (GET /api/assistants/{id}/feedback): the caller manages the assistant, and the rating is in a
   * chat with it that the members' organization lets owners read. Any other answer is not found.
   */
  async fromRatedAnswer(context: CallContext, assistantId: number, input: CaseFromAnswerInput): Promise<TestCaseView> {
    const record = await loadTestableAssistant(this.db, context, assistantId);
    const scope = assistantChatsScope(context.identity, { ...assistantFacts(record), id: record.id });
    const rated = await findScopedFeedback(this.db, scope, input.message_id);
    if (rated === undefined) throw new AppError('not_found', 'No rated answer of this assistant has this id.', { param: 'message_id' });
    const branch = branchTo(await listMessages(this.db, [rated.chat_id]), rated.message_id);
    const testCase = caseFromRatedAnswer({ messages: branch, rating: rated.rating, comment: rated.comment }, this.caseLimits);
    if (testCase === undefined)
      throw new AppError('invalid_body', 'The rated answer follows no learner question to replay.', { param: 'message_id' });
    return this.create(context, assistantId, testCase);
  }

  private async insert(context: CallContext, assistantId: number, inputs: TestCaseInput[]): Promise<TestCaseView[]> {
    const record = await loadTestableAssistant(this.db, context, assistantId);
    const now = nowTimestamp();
    const ids = await this.db.transaction().execute(async (transaction) => {
      // Counted under the assistant's lock, so racing creates on any process never pass the cap.
      await lockAssistantTests(transaction, assistantId);
      if ((await countTestCases(transaction, assistantId)) + inputs.length > this.casesPerAssistantMaximum)
        throw new AppError('test_cases_limit', `An assistant may hold at most ${this.casesPerAssistantMaximum} test cases.`);
      const inserted = await insertTestCases(
        transaction,
        inputs.map((input) => ({
          assistant_id: assistantId,
          name: input.name,
          kind: input.kind,
          turns: JSON.stringify(input.turns),
          expectations: JSON.stringify(input.expectations),
          created_by: context.identity.userId,
          created_at: now,
          updated_at: now,
        })),
      );
      await appendAuditEntry(transaction, assistantAuditEntry(context, record, 'assistant.test_case_create', { case_ids: inserted }));
      return inserted;
    });
    const views: TestCaseView[] = [];
    for (const id of ids) views.push(testCaseView(await this.requireCase(this.db, assistantId, id)));
    return views;
  }

  private async requireCase(db: Kysely<Database>, assistantId: number, caseId: number): Promise<TestCaseRow> {
    const row = await findTestCase(db, assistantId, caseId);
    if (!row) throw new AppError('not_found', 'Test case not found.');
    return row;
  }
}
