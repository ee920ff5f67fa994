/**
 * Proposed test cases (docs/assistant-tests.md, "Suggested cases"): the organization's small fast
 * model reads the assistant's system prompt and a bounded sample of its knowledge bases' passages
 * and proposes up to TEST_SUGGESTIONS_MAX cases; those the test-case schema refuses are dropped,
 * and nothing is saved (the teacher accepts one with POST …/tests). The call is bounded in time
 * (TEST_SUGGESTION_TIMEOUT_MS) and output (TEST_SUGGESTION_TOKENS_MAX) and is one usage row,
 * marked as test traffic, for the assistant's owner. The prompt and passages go to the model only:
 * errors say what failed, never what was sent.
 */
import type { Kysely } from 'kysely';
import { identityOf } from '../auth/authenticator.js';
import type { CallContext } from '../auth/call-context.js';
import type { Identity } from '../auth/identity.js';
import type { RunRecordWriter } from '../completions/run-record-writer.js';
import { AppError } from '../errors/app-error.js';
import { startDeadline } from '../pipeline/bounds/deadline.js';
import type { Usage } from '../pipeline/conversation/events.js';
import type { ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import type { AssistantRecord } from '../store/assistants-repository.js';
import { nowTimestamp, type Database } from '../store/schema.js';
import { findUserById } from '../store/users-repository.js';
import type { JudgeModel } from './answer-judge.js';
import type { TestCaseLimits, TestSuggestionsInput, TestSuggestionsView } from './assistant-test-schemas.js';
import { PROPOSAL_INSTRUCTIONS, proposalPrompt, ProposalReader } from './case-proposals.js';
import { loadTestableAssistant } from './test-case-service.js';

export interface TestSuggestionLimits {
  suggestionsMaximum: number;
  passageCharactersMaximum: number;
  tokensMaximum: number;
  timeoutMilliseconds: number;
}

export interface TestSuggestionDependencies {
  db: Kysely<Database>;
  registries: Registries;
  runRecords: RunRecordWriter;
  providersFor: (organizationId: number) => Promise<(connectorName: string) => ProviderSettings>;
  smallFastModelFor: (organizationId: number) => Promise<{ connector: string; model: string } | undefined>;
  /** Passages of the collections the owner may query, at most so many characters in all. */
  passageSampleFor: (
    owner: Identity,
    collectionIds: readonly string[],
    charactersMaximum: number,
  ) => Promise<{ file_name: string; text: string }[]>;
  caseLimits: TestCaseLimits;
  limits: TestSuggestionLimits;
}

const NO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

/** The knowledge bases the assistant searches: its classic RAG collections and its tools' `collections`. */
export function collectionsOfAssistant(record: Pick<AssistantRecord, 'rag_collections' | 'metadata'>): string[] {
  const collections = record.rag_collections.split(',').map((collection) => collection.trim());
  let metadata: unknown;
  try {
    metadata = JSON.parse(record.metadata);
  } catch {
    metadata = undefined;
  }
  const tools = typeof metadata === 'object' && metadata !== null ? (metadata as { tools?: unknown }).tools : undefined;
  for (const tool of Array.isArray(tools) ? tools : []) {
    const listed = (tool as { config?: { collections?: unknown } } | null)?.config?.collections;
    if (Array.isArray(listed)) collections.push(...listed.filter((collection): collection is string => typeof collection === 'string'));
  }
  return [...new Set(collections.filter((collection) => collection !== ''))];
}

export class TestSuggestionService {
  private readonly reader: ProposalReader;

  constructor(private readonly dependencies: TestSuggestionDependencies) {
    this.reader = new ProposalReader(dependencies.caseLimits);
  }

  async propose(context: CallContext, assistantId: number, input: TestSuggestionsInput): Promise<TestSuggestionsView> {
    const { db, limits } = this.dependencies;
    const record = await loadTestableAssistant(db, context, assistantId);
    const model = await this.smallFastModel(record.organization_id);
    const ownerRow = await findUserById(db, record.owner_id);
    if (ownerRow === undefined) throw new AppError('not_found', 'Assistant not found.');
    const owner = identityOf(ownerRow, 'assistant_owner', 0);
    const passages = await this.dependencies.passageSampleFor(owner, collectionsOfAssistant(record), limits.passageCharactersMaximum);
    const count = Math.min(input.count ?? limits.suggestionsMaximum, limits.suggestionsMaximum);
    const prompt = proposalPrompt({ systemPrompt: record.system_prompt, passages, count });
    const started = performance.now();
    const countUsage = (usage: Usage, outcome: string) =>
      this.countCall({ record, owner, model, requestId: context.requestId }, { usage, outcome, started });
    let reply: { answer: string; usage: Usage | undefined };
    try {
      reply = await this.ask(model, prompt);
    } catch (error) {
      await countUsage(NO_USAGE, 'failed:suggestions');
      throw error;
    }
    const read = this.reader.read(reply.answer, count);
    await countUsage(reply.usage ?? NO_USAGE, read.readable ? 'completed' : 'failed:suggestions_unreadable');
    // An unreadable answer is the model's, not a failure of the call: the teacher is told and may ask again.
    return { proposals: read.proposals, dropped: read.dropped, answer_readable: read.readable };
  }

  private async smallFastModel(organizationId: number): Promise<JudgeModel> {
    const choice = await this.dependencies.smallFastModelFor(organizationId);
    const connector = choice === undefined ? undefined : this.dependencies.registries.connectors.get(choice.connector);
    if (choice === undefined || connector === undefined) throw new AppError('no_small_fast_model');
    const providerFor = await this.dependencies.providersFor(organizationId);
    return { connector, connectorName: choice.connector, model: choice.model, provider: providerFor(choice.connector) };
  }

  private async ask(model: JudgeModel, prompt: string): Promise<{ answer: string; usage: Usage | undefined }> {
    const { timeoutMilliseconds, tokensMaximum } = this.dependencies.limits;
    // A real timer (startDeadline), since AbortSignal.timeout's can be collected before it fires.
    const deadline = startDeadline(timeoutMilliseconds);
    let answer = '';
    let usage: Usage | undefined;
    try {
      const events = model.connector.complete({
        model: model.model,
        messages: [
          { role: 'system', content: PROPOSAL_INSTRUCTIONS },
          { role: 'user', content: prompt },
        ],
        parameters: { temperature: 0.3, max_tokens: tokensMaximum },
        provider: model.provider,
        signal: deadline.signal,
        timeoutMilliseconds,
        wholeAnswer: true,
      });
      for await (const event of events) {
        if (event.type === 'text-delta') answer += event.text;
        else if (event.type === 'usage') usage = event.usage;
      }
    } catch (error) {
      if (deadline.expired)
        throw new AppError('upstream_timeout', 'The small fast model did not propose cases within TEST_SUGGESTION_TIMEOUT_MS.');
      // The connectors' AppErrors say what failed without what was sent; anything else is told as a provider failure.
      throw error instanceof AppError ? error : new AppError('upstream_error', 'The small fast model failed to propose cases.');
    } finally {
      deadline.clear();
    }
    return { answer, usage };
  }

  /** The call's usage row, marked as test traffic, for the owner and the assistant. */
  private async countCall(
    about: { record: AssistantRecord; owner: Identity; model: JudgeModel; requestId: string | null },
    call: { usage: Usage; outcome: string; started: number },
  ): Promise<void> {
    const { record, owner, model, requestId } = about;
    await this.dependencies.runRecords
      .write({
        usage: {
          created_at: nowTimestamp(),
          organization_id: record.organization_id,
          user_id: owner.userId,
          assistant_id: record.id,
          connector: model.connectorName,
          model: model.model,
          prompt_tokens: call.usage.prompt_tokens,
          completion_tokens: call.usage.completion_tokens,
          total_tokens: call.usage.total_tokens,
          duration_ms: Math.round(performance.now() - call.started),
          outcome: call.outcome,
          request_id: requestId === null ? null : `test-suggestions-${requestId}`,
          traffic: 'test',
        },
      })
      .catch(() => undefined);
  }
}
