/**
 * Keeps an answer while it streams past, and saves it when the run ends: whole when the model
 * finished, partial with finish reason `stopped` when the client stopped or left, and not at all
 * when the run failed (the error goes on to the client; the question stays so it can be retried).
 */
import type { FinishReason, PipelineEvent, Source, StatusEvent, Usage } from '../pipeline/conversation/events.js';
import type { ChatStep } from './chat-schemas.js';

export interface RecordedAnswer {
  content: string;
  reasoning: string | null;
  sources: Source[];
  steps: ChatStep[];
  usage: Usage | null;
  /** `interrupted`: the process producing it died, and what it had logged was kept (chat-run-sweep.ts). */
  finishReason: FinishReason | 'stopped' | 'interrupted';
  /** From the draft's start to its end, for the assistant's insights; null for an answer rebuilt after its process died. */
  durationMilliseconds: number | null;
}

/** Builds the answer from the events; steps keep their order of first appearance. */
export class AnswerDraft {
  private content = '';
  private reasoning = '';
  private readonly sources: Source[] = [];
  private readonly steps = new Map<string, ChatStep>();
  private readonly startedAt = new Map<string, number>();
  private usage: Usage | null = null;
  private readonly started = performance.now();
  finishReason: FinishReason | undefined;

  add(event: PipelineEvent): void {
    if (event.type === 'text-delta') this.content += event.text;
    else if (event.type === 'reasoning-delta') this.reasoning += event.text;
    else if (event.type === 'sources') this.sources.push(...event.sources);
    else if (event.type === 'usage') this.usage = event.usage;
    else if (event.type === 'finish') this.finishReason = event.finishReason;
    else this.addStatus(event.status);
  }

  private addStatus(status: StatusEvent): void {
    const now = performance.now();
    if (!this.startedAt.has(status.id)) this.startedAt.set(status.id, now);
    const started = this.startedAt.get(status.id) ?? now;
    this.steps.set(status.id, {
      id: status.id,
      tool: status.tool,
      display_name: status.display_name ?? status.tool,
      state: status.state,
      duration_ms: status.state === 'running' ? null : Math.round(now - started),
      ...(status.parent !== undefined && { parent: status.parent }),
    });
  }

  /** The answer as it stands; a step still running when the answer was stopped or cut off never finished, so it is an error. */
  result(finishReason: RecordedAnswer['finishReason']): RecordedAnswer {
    const steps = [...this.steps.values()].map((step) =>
      (finishReason === 'stopped' || finishReason === 'interrupted') && step.state === 'running'
        ? { ...step, state: 'error' as const }
        : step,
    );
    return {
      content: this.content,
      reasoning: this.reasoning === '' ? null : this.reasoning,
      sources: this.sources,
      steps,
      usage: this.usage,
      finishReason,
      durationMilliseconds: finishReason === 'interrupted' ? null : Math.round(performance.now() - this.started),
    };
  }
}

/**
 * Passes every event on as it comes and saves the answer once, at the end. `stopped` tells a
 * client that went away from a failure: a run whose signal aborted is saved as it stands.
 */
export async function* recordedAnswer(
  events: AsyncGenerator<PipelineEvent>,
  stopped: AbortSignal,
  save: (answer: RecordedAnswer) => Promise<void>,
): AsyncGenerator<PipelineEvent> {
  const draft = new AnswerDraft();
  let failed = false;
  try {
    for await (const event of events) {
      draft.add(event);
      yield event;
    }
  } catch (error) {
    failed = !stopped.aborted;
    throw error;
  } finally {
    // Also reached when the consumer closes this generator early (the client left mid-stream).
    if (!failed) await save(draft.result(draft.finishReason ?? 'stopped'));
  }
}
