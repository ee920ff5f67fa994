/**
 * An answer as it streams in: the stream's events folded into the same shape a kept message has
 * (content, reasoning, steps with durations, sources, usage, finish reason), plus an error when
 * the answer failed. Durations of live steps are measured here, from running to done.
 */
import type { ChatMessage, Step } from '$lib/api/chat-types';
import type { StreamEvent } from './chat-stream';

export interface LiveAnswer extends Omit<ChatMessage, 'id' | 'created_at' | 'role'> {
  /** When each running step started (ms on the caller's clock). */
  startedAt: Record<string, number>;
  /** A readable reason the answer failed. */
  error: string | undefined;
  /** The server's stable code for it, which the page shows in the reader's language. */
  errorCode: string | undefined;
  /** The stream has ended, whichever way. */
  ended: boolean;
}

export function emptyAnswer(): LiveAnswer {
  return {
    content: '',
    reasoning: null,
    sources: [],
    steps: [],
    usage: null,
    finish_reason: null,
    startedAt: {},
    error: undefined,
    errorCode: undefined,
    ended: false,
  };
}

function applyStatus(answer: LiveAnswer, event: Extract<StreamEvent, { type: 'status' }>, now: number): void {
  const { status } = event;
  const existing = answer.steps.find((step) => step.id === status.id);
  const step: Step = existing ?? { id: status.id, tool: status.tool, state: status.state };
  if (!existing) answer.steps.push(step);
  step.tool = status.tool;
  step.display_name = status.display_name ?? existing?.display_name ?? null;
  if (status.parent !== undefined) step.parent = status.parent;
  step.state = status.state;
  if (status.state === 'running') answer.startedAt[status.id] ??= now;
  else {
    const started = answer.startedAt[status.id];
    step.duration_ms = started === undefined ? null : Math.max(0, Math.round(now - started));
  }
}

/** Folds one stream event into the answer (in place, so a reactive answer updates). */
export function applyStreamEvent(answer: LiveAnswer, event: StreamEvent, now: number): void {
  switch (event.type) {
    case 'status':
      applyStatus(answer, event, now);
      break;
    case 'content':
      answer.content += event.text;
      break;
    case 'reasoning':
      answer.reasoning = (answer.reasoning ?? '') + event.text;
      break;
    case 'sources':
      // Sources come as each tool reports them (context tools first, then each round of calls).
      answer.sources = [...answer.sources, ...event.sources];
      break;
    case 'usage':
      answer.usage = event.usage;
      break;
    case 'finish':
      answer.finish_reason = event.reason;
      break;
    case 'error':
      answer.error = event.message || event.code;
      answer.errorCode = event.code;
      answer.ended = true;
      break;
    case 'done':
      answer.ended = true;
      break;
  }
}

export interface StepNode {
  step: Step;
  children: StepNode[];
}

/** Steps as a tree: each under its parent, in the order they started; an unknown parent makes a root. */
export function stepTree(steps: Step[]): StepNode[] {
  const nodes = new Map(steps.map((step) => [step.id, { step, children: [] as StepNode[] }]));
  const roots: StepNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.step.parent ? nodes.get(node.step.parent) : undefined;
    if (parent && parent !== node) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** Now, as the API writes timestamps. */
export function timestampNow(): string {
  return new Date().toISOString();
}
