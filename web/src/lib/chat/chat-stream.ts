/**
 * Reads the SSE stream of `POST /api/chats/{id}/messages` (the wire format of /v1/chat/completions,
 * docs/chat-wire-format.md) into typed events: status steps, content and reasoning deltas,
 * sources, usage, the finish reason, an error, or the end. Framing is eventsource-parser's job;
 * this module only reads the JSON each event carries.
 */
import { createParser } from 'eventsource-parser';
// Relative, not $lib: the repository's vitest runs this module's tests without SvelteKit's alias.
import { isTitledSource, type Source, type StepState, type Usage } from '../api/chat-types';

export interface StatusChunk {
  id: string;
  tool: string;
  display_name?: string;
  state: StepState;
  message: string;
  parent?: string;
}

export type StreamEvent =
  | { type: 'status'; status: StatusChunk }
  | { type: 'content'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'sources'; sources: Source[] }
  | { type: 'usage'; usage: Usage }
  | { type: 'finish'; reason: string }
  | { type: 'error'; code: string; message: string }
  | { type: 'done' };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function statusOf(value: unknown): StatusChunk | undefined {
  if (!isRecord(value) || typeof value['id'] !== 'string' || typeof value['tool'] !== 'string') return undefined;
  const state = value['state'];
  if (state !== 'running' && state !== 'done' && state !== 'error') return undefined;
  return {
    id: value['id'],
    tool: value['tool'],
    state,
    message: typeof value['message'] === 'string' ? value['message'] : '',
    ...(typeof value['display_name'] === 'string' ? { display_name: value['display_name'] } : {}),
    ...(typeof value['parent'] === 'string' ? { parent: value['parent'] } : {}),
  };
}

function choiceEvents(choices: unknown): StreamEvent[] {
  if (!Array.isArray(choices) || !isRecord(choices[0])) return [];
  const choice = choices[0];
  const events: StreamEvent[] = [];
  const delta = choice['delta'];
  if (isRecord(delta)) {
    if (typeof delta['reasoning_content'] === 'string' && delta['reasoning_content'] !== '')
      events.push({ type: 'reasoning', text: delta['reasoning_content'] });
    if (typeof delta['content'] === 'string' && delta['content'] !== '') events.push({ type: 'content', text: delta['content'] });
  }
  if (typeof choice['finish_reason'] === 'string') events.push({ type: 'finish', reason: choice['finish_reason'] });
  return events;
}

/** The events one `data:` payload carries; a payload that is not the format's JSON carries none. */
export function eventsOfData(data: string): StreamEvent[] {
  if (data.trim() === '[DONE]') return [{ type: 'done' }];
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return [];
  }
  if (!isRecord(chunk)) return [];
  if (isRecord(chunk['error'])) {
    const error = chunk['error'];
    return [
      {
        type: 'error',
        code: typeof error['code'] === 'string' ? error['code'] : 'stream_error',
        message: typeof error['message'] === 'string' ? error['message'] : '',
      },
    ];
  }
  const events: StreamEvent[] = [];
  const status = statusOf(chunk['status']);
  if (status) events.push({ type: 'status', status });
  events.push(...choiceEvents(chunk['choices']));
  if (Array.isArray(chunk['sources'])) {
    const sources = chunk['sources'].filter(isTitledSource);
    events.push({ type: 'sources', sources });
  }
  if (isRecord(chunk['usage'])) events.push({ type: 'usage', usage: chunk['usage'] as unknown as Usage });
  return events;
}

/** Feeds every event of the stream to `onEvent` as it arrives; resolves when the body ends. */
export async function readChatStream(body: ReadableStream<Uint8Array>, onEvent: (event: StreamEvent) => void): Promise<void> {
  const parser = createParser({ onEvent: (message) => eventsOfData(message.data).forEach(onEvent) });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  parser.feed(decoder.decode());
}
