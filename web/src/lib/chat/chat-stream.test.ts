/**
 * Reading the chat stream: each kind of chunk of docs/chat-wire-format.md becomes its event, a
 * closing error chunk becomes an error, and events split across network reads are still read whole.
 */
import { describe, expect, it } from 'vitest';
import { eventsOfData, readChatStream, type StreamEvent } from './chat-stream';
import { applyStreamEvent, emptyAnswer, stepTree } from './live-answer';

const STATUS = { id: 'status-1', tool: 'single_file_rag', display_name: 'Course file', state: 'running', message: 'reading' };

function chunk(extra: Record<string, unknown>): string {
  return JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], ...extra });
}

describe('the chat stream reader', () => {
  it('reads status, reasoning, content, finish, sources, usage and done', () => {
    const events = [
      chunk({ status: STATUS }),
      chunk({ choices: [{ index: 0, delta: { reasoning_content: 'Hmm.' }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: { role: 'assistant', content: 'Cells ' }, finish_reason: null }] }),
      chunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
      chunk({ sources: [{ title: 'week1.md', url: '3/week1.md' }, { notATitle: true }] }),
      chunk({ usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }),
      '[DONE]',
    ].flatMap(eventsOfData);
    expect(events.map((event) => event.type)).toEqual(['status', 'reasoning', 'content', 'finish', 'sources', 'usage', 'done']);
    expect(events[4]).toEqual({ type: 'sources', sources: [{ title: 'week1.md', url: '3/week1.md' }] });
  });

  it('reads a closing error chunk as an error', () => {
    expect(eventsOfData('{"error":{"code":"upstream_error","message":"The model ended the answer early."}}')).toEqual([
      { type: 'error', code: 'upstream_error', message: 'The model ended the answer early.' },
    ]);
  });

  it('ignores what is not the format', () => {
    expect(eventsOfData('{not json')).toEqual([]);
    expect(eventsOfData('[1,2]')).toEqual([]);
    expect(eventsOfData(chunk({ status: { id: 1, tool: 'x', state: 'bogus' } }))).toEqual([]);
  });

  it('reads events split across reads', async () => {
    const text = `data: ${chunk({ status: STATUS })}\n\ndata: ${chunk({ choices: [{ index: 0, delta: { content: 'Hé' } }] })}\n\ndata: [DONE]\n\n`;
    const bytes = new TextEncoder().encode(text);
    const pieces = [bytes.slice(0, 7), bytes.slice(7, text.indexOf('Hé') + 1), bytes.slice(text.indexOf('Hé') + 1)];
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        pieces.forEach((piece) => controller.enqueue(piece));
        controller.close();
      },
    });
    const events: StreamEvent[] = [];
    await readChatStream(body, (event) => events.push(event));
    expect(events).toEqual([{ type: 'status', status: STATUS }, { type: 'content', text: 'Hé' }, { type: 'done' }]);
  });
});

describe('the live answer', () => {
  it('measures each step from running to done and nests steps under their parent', () => {
    const answer = emptyAnswer();
    applyStreamEvent(answer, { type: 'status', status: { id: 'a', tool: 'assistant_tool', state: 'running', message: '' } }, 100);
    applyStreamEvent(answer, { type: 'status', status: { id: 'b', tool: 'weather', state: 'running', message: '', parent: 'a' } }, 110);
    applyStreamEvent(answer, { type: 'status', status: { id: 'b', tool: 'weather', state: 'error', message: '', parent: 'a' } }, 150);
    applyStreamEvent(answer, { type: 'status', status: { id: 'a', tool: 'assistant_tool', state: 'done', message: '' } }, 400);
    applyStreamEvent(answer, { type: 'content', text: 'Sunny' }, 401);
    expect(answer.steps.map((step) => [step.id, step.state, step.duration_ms])).toEqual([
      ['a', 'done', 300],
      ['b', 'error', 40],
    ]);
    const tree = stepTree(answer.steps);
    expect(tree.map((node) => [node.step.id, node.children.map((child) => child.step.id)])).toEqual([['a', ['b']]]);
    expect(answer.content).toBe('Sunny');
  });

  it('ends with the error a closing error chunk names', () => {
    const answer = emptyAnswer();
    applyStreamEvent(answer, { type: 'error', code: 'upstream_timeout', message: '' }, 0);
    expect([answer.error, answer.ended]).toEqual(['upstream_timeout', true]);
  });
});
