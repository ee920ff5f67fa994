/**
 * Renders pipeline events in OpenAI's chat completion format (DESIGN §4). Streaming: standard
 * `chat.completion.chunk`s for text; status and sources in chunks with `choices: []` and a
 * top-level `status` or `sources`; the usage chunk; `data: [DONE]`. A failure after the first
 * byte ends the stream with an error chunk and no `[DONE]`. Non-streaming: one `chat.completion`
 * with `sources`.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FinishReason, PipelineEvent, Source, StatusEvent, Usage } from '../pipeline/conversation/events.js';
import { NO_USAGE } from '../pipeline/conversation/events.js';
import type { ErrorBody } from './error-rendering.js';

export interface CompletionIdentity {
  id: string;
  created: number;
  /** The model id exactly as the client sent it. */
  model: string;
}

export function newCompletionIdentity(model: string): CompletionIdentity {
  return { id: `chatcmpl-${randomUUID().replaceAll('-', '')}`, created: Math.floor(Date.now() / 1000), model };
}

function chunk(identity: CompletionIdentity, fields: Record<string, unknown>): Record<string, unknown> {
  return { id: identity.id, object: 'chat.completion.chunk', created: identity.created, model: identity.model, ...fields };
}

function contentChunk(
  identity: CompletionIdentity,
  delta: Record<string, unknown>,
  finishReason: FinishReason | null = null,
): Record<string, unknown> {
  return chunk(identity, { choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }] });
}

/** For clients that show only content: status lines as markdown in the answer. */
function statusAsContent(status: StatusEvent): string | undefined {
  if (status.state === 'running') return `_${status.message}…_\n\n`;
  if (status.state === 'error') return `_${status.message}_\n\n`;
  return undefined;
}

export interface StreamOptions {
  statusAsContent: boolean;
}

/** Writes SSE for each event; remembers whether the assistant role was announced. */
export class ChunkWriter {
  private roleSent = false;

  constructor(
    private readonly response: ServerResponse,
    private readonly identity: CompletionIdentity,
    private readonly options: StreamOptions,
  ) {}

  private send(payload: unknown): void {
    this.response.write(`data: ${JSON.stringify(payload)}\n\n`);
  }

  private sendDelta(delta: Record<string, unknown>): void {
    this.send(contentChunk(this.identity, this.roleSent ? delta : { role: 'assistant', ...delta }));
    this.roleSent = true;
  }

  write(event: PipelineEvent): void {
    switch (event.type) {
      case 'status': {
        if (!this.options.statusAsContent) {
          this.send(chunk(this.identity, { choices: [], status: event.status }));
          return;
        }
        const text = statusAsContent(event.status);
        if (text !== undefined) this.sendDelta({ content: text });
        return;
      }
      case 'text-delta':
        this.sendDelta({ content: event.text });
        return;
      case 'reasoning-delta':
        this.sendDelta({ reasoning_content: event.text });
        return;
      case 'finish':
        this.send(contentChunk(this.identity, {}, event.finishReason));
        return;
      case 'sources':
        this.send(chunk(this.identity, { choices: [], sources: event.sources }));
        return;
      case 'usage':
        this.send(chunk(this.identity, { choices: [], usage: event.usage }));
        return;
    }
  }

  done(): void {
    this.response.end('data: [DONE]\n\n');
  }

  fail(error: ErrorBody): void {
    this.response.end(`data: ${JSON.stringify(error)}\n\n`);
  }
}

export interface CompletionAnswer {
  text: string;
  reasoning: string;
  finishReason: FinishReason;
  sources: Source[];
  usage: Usage;
}

export async function gatherAnswer(events: AsyncIterable<PipelineEvent>): Promise<CompletionAnswer> {
  const answer: CompletionAnswer = { text: '', reasoning: '', finishReason: 'stop', sources: [], usage: NO_USAGE };
  for await (const event of events) {
    if (event.type === 'text-delta') answer.text += event.text;
    else if (event.type === 'reasoning-delta') answer.reasoning += event.text;
    else if (event.type === 'finish') answer.finishReason = event.finishReason;
    else if (event.type === 'sources') answer.sources.push(...event.sources);
    else if (event.type === 'usage') answer.usage = event.usage;
  }
  return answer;
}

export function completionBody(identity: CompletionIdentity, answer: CompletionAnswer): Record<string, unknown> {
  return {
    id: identity.id,
    object: 'chat.completion',
    created: identity.created,
    model: identity.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.text, ...(answer.reasoning !== '' && { reasoning_content: answer.reasoning }) },
        logprobs: null,
        finish_reason: answer.finishReason,
      },
    ],
    usage: answer.usage,
    sources: answer.sources,
  };
}
