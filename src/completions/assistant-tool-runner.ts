/**
 * Assistants used as tools by an orchestrator (issue 6, DESIGN §1). Every call checks the target
 * again, as the orchestrator's owner: it exists, is not deleted, the owner may chat with it, and
 * it is not an orchestrator. A refusal is a clear error for the model and an audit entry; a
 * revoked share or an unpublished target fails on the next call. An allowed call runs the target's
 * whole pipeline, not streamed; its status events are forwarded nested under the call, and its
 * answer (cut to a bound) and sources come back. Calls per request and their total time are bounded.
 */
import type { Kysely } from 'kysely';
import type { Identity } from '../auth/identity.js';
import { decideAssistantTool, type AssistantToolRefusal } from '../auth/permissions.js';
import { assistantFacts } from '../assistants/assistant-view.js';
import { isOrchestrator, type AssistantMetadata } from '../pipeline/assistant-metadata/metadata-normalizer.js';
import { AppError } from '../errors/app-error.js';
import { IMAGE_CONNECTOR } from '../organizations/provider-resolution.js';
import { startDeadline, type Deadline } from '../pipeline/bounds/deadline.js';
import type { PipelineEvent, Source } from '../pipeline/conversation/events.js';
import type { AssistantRunner, AssistantTarget, CallStatus } from '../pipeline/plugin-contract/ports.js';
import { appendAuditEntry } from '../store/audit-log-repository.js';
import { findAssistant, type AssistantRecord } from '../store/assistants-repository.js';
import type { Database } from '../store/schema.js';

export interface AssistantToolLimits {
  callsMaximum: number;
  totalMilliseconds: number;
  resultCharactersMaximum: number;
}

export interface AssistantToolRunnerOptions {
  db: Kysely<Database>;
  orchestrator: AssistantRecord;
  /** The orchestrator's owner: the identity every target is checked against. */
  owner: Identity;
  requestId: string | null;
  limits: AssistantToolLimits;
  /** Runs a target's pipeline for one user message (built by the completion service, unable to call assistants itself). */
  runTarget(target: AssistantRecord, query: string, signal: AbortSignal): AsyncGenerator<PipelineEvent>;
}

const REFUSALS: Record<AssistantToolRefusal, { code: 'not_found' | 'forbidden'; message: (id: number) => string }> = {
  not_found: { code: 'not_found', message: (id) => `Assistant ${id} does not exist or was deleted.` },
  self: { code: 'forbidden', message: () => 'An assistant cannot call itself.' },
  not_permitted: {
    code: 'forbidden',
    message: (id) =>
      `This assistant's owner may not use assistant ${id} (it is not theirs, not shared with them, and not published to them).`,
  },
  orchestrator: { code: 'forbidden', message: (id) => `Assistant ${id} uses other assistants itself, so it cannot be used as a tool.` },
};

function cut(text: string, maximum: number): string {
  return text.length <= maximum
    ? text
    : `${text.slice(0, maximum)}\n[truncated: the answer had ${text.length} characters; only the first ${maximum} are shown]`;
}

/** Nested ids stay unique in the stream: the target's `status-2` under call `status-5` is `status-5/status-2`. */
function nestedStatus(event: PipelineEvent & { type: 'status' }, call: CallStatus) {
  const status = event.status;
  return { ...status, id: `${call.id}/${status.id}`, parent: status.parent === undefined ? call.id : `${call.id}/${status.parent}` };
}

export class AssistantToolRunner implements AssistantRunner {
  private calls = 0;
  private readonly deadline: Deadline;

  constructor(private readonly options: AssistantToolRunnerOptions) {
    this.deadline = startDeadline(options.limits.totalMilliseconds);
  }

  /** A method, so that an earlier check is not taken for its answer: the deadline passes while calls await. */
  private deadlinePassed(): boolean {
    return this.deadline.expired;
  }

  private async refuse(targetId: number, refusal: AssistantToolRefusal): Promise<never> {
    const { db, orchestrator, owner, requestId } = this.options;
    await appendAuditEntry(db, {
      actorUserId: owner.userId,
      organizationId: orchestrator.organization_id,
      action: 'assistant_tool.refused',
      targetType: 'assistant',
      targetId,
      details: { orchestrator_id: orchestrator.id, reason: refusal },
      requestId,
    });
    const reason = REFUSALS[refusal];
    throw new AppError(reason.code, reason.message(targetId));
  }

  private async load(targetId: number): Promise<AssistantRecord> {
    const { db, orchestrator, owner } = this.options;
    const record = await findAssistant(db, targetId, owner.userId);
    const facts =
      record === undefined
        ? undefined
        : { ...assistantFacts(record), id: record.id, orchestrator: isOrchestrator(JSON.parse(record.metadata) as AssistantMetadata) };
    const refusal = decideAssistantTool(owner, facts, orchestrator.id);
    if (refusal !== undefined) return this.refuse(targetId, refusal);
    return record!;
  }

  async check(targetId: number): Promise<AssistantTarget> {
    const record = await this.load(targetId);
    return {
      id: record.id,
      name: record.name,
      description: record.description,
      generatesImages: (JSON.parse(record.metadata) as AssistantMetadata).connector === IMAGE_CONNECTOR,
    };
  }

  async run(
    targetId: number,
    query: string,
    options: { signal: AbortSignal; status?: CallStatus },
  ): Promise<{ content: string; sources: Source[] }> {
    const { limits } = this.options;
    this.calls += 1;
    if (this.calls > limits.callsMaximum)
      throw new AppError(
        'forbidden',
        `This request already called ${limits.callsMaximum} assistants, the most it may; answer with what you have.`,
      );
    const overTime = () =>
      new AppError('upstream_timeout', `Calls to other assistants took longer than ${limits.totalMilliseconds} ms in this request.`);
    if (this.deadlinePassed()) throw overTime();
    const target = await this.load(targetId);
    const signal = AbortSignal.any([options.signal, this.deadline.signal]);
    let content = '';
    const sources: Source[] = [];
    try {
      for await (const event of this.options.runTarget(target, query, signal)) {
        if (event.type === 'text-delta') content += event.text;
        else if (event.type === 'sources')
          sources.push(...event.sources.map((source) => ({ ...source, assistant_id: target.id, assistant: target.name })));
        else if (event.type === 'status' && options.status !== undefined) options.status.emit(nestedStatus(event, options.status));
      }
    } catch (error) {
      if (this.deadlinePassed() && !options.signal.aborted) throw overTime();
      throw error;
    }
    return { content: cut(content, limits.resultCharactersMaximum), sources };
  }
}

/** For a run that may not call assistants (a target, or an assistant without assistant tools). */
export const NO_ASSISTANT_TOOLS: AssistantRunner = {
  check: async () => {
    throw new AppError('forbidden', 'This assistant cannot call other assistants.');
  },
  run: async () => {
    throw new AppError('forbidden', 'This assistant cannot call other assistants.');
  },
};
