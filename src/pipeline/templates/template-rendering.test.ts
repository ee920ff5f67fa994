// Proves template rendering: one-pass substitution of known placeholders only, LAMB's blank-line framing and "Available Sources" list, template fallbacks, message order, and vision-dependent image parts.
import { describe, expect, it } from 'vitest';
import type { AssistantSnapshot } from '../assistant-metadata/assistant-snapshot.js';
import type { Source } from '../conversation/events.js';
import type { ChatMessage } from '../conversation/messages.js';
import { formatSourceList, renderMessages, substitutePlaceholders } from './template-rendering.js';

interface RenderOptions {
  template?: string;
  systemPrompt?: string;
  messages?: ChatMessage[];
  values?: Record<string, string>;
  contextSources?: Source[];
  known?: string[];
  vision?: boolean;
  defaultTemplate?: string;
}

function assistantWith(options: RenderOptions): AssistantSnapshot {
  return {
    id: 7,
    name: 'Template test assistant',
    ownerId: 1,
    organizationId: 1,
    systemPrompt: options.systemPrompt ?? '',
    promptTemplate: options.template ?? '',
    metadata: { _format_version: 2, ...(options.vision === undefined ? {} : { capabilities: { vision: options.vision } }) },
    ragCollections: [],
    ragTopK: 3,
  };
}

function render(options: RenderOptions): ChatMessage[] {
  return renderMessages({
    assistant: assistantWith(options),
    messages: options.messages ?? [{ role: 'user', content: 'question' }],
    values: options.values ?? {},
    contextSources: options.contextSources ?? [],
    knownPlaceholders: new Set(options.known ?? ['context', 'file']),
    defaultTemplate: options.defaultTemplate ?? 'DEFAULT {context} / {user_input}',
  });
}

/** The rendered last message's content, which must be a string here. */
function lastText(options: RenderOptions): string {
  const content = render(options).at(-1)?.content;
  if (typeof content !== 'string') throw new Error(`expected string content, got ${JSON.stringify(content)}`);
  return content;
}

const framed = (text: string) => `\n\n${text}\n\n`;

describe('renderMessages one-pass substitution', () => {
  it('does not substitute {context} or {file} written by the user', () => {
    const text = lastText({
      template: 'Q:{user_input}C:{context}F:{file}',
      values: { context: 'CTX', file: 'FILE' },
      messages: [{ role: 'user', content: 'what do {context} and {file} mean?' }],
    });
    expect(text).toBe(`Q:${framed('what do {context} and {file} mean?')}C:${framed('CTX')}F:${framed('FILE')}`);
  });

  it('does not substitute {user_input} or other placeholders inside a tool output', () => {
    const text = lastText({
      template: '{context}|{file}|{user_input}',
      values: { context: 'see {user_input} here', file: 'and {context} there' },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(text).toBe(`${framed('see {user_input} here')}|${framed('and {context} there')}|${framed('hi')}`);
  });

  it('substitutes a placeholder used several times in the template each time', () => {
    expect(lastText({ template: '{user_input}+{user_input}', messages: [{ role: 'user', content: 'x' }] })).toBe(
      `${framed('x')}+${framed('x')}`,
    );
  });
});

describe('renderMessages leaves unknown braces as written', () => {
  it('keeps {unknown}, { context }, {Context}, {} and JSON braces untouched', () => {
    const template = 'A {unknown} B { context } C {Context} D {} E {"a": 1} F {user_input}';
    const text = lastText({ template, messages: [{ role: 'user', content: 'q' }] });
    expect(text).toBe(`A {unknown} B { context } C {Context} D {} E {"a": 1} F ${framed('q')}`);
  });

  it('keeps a placeholder that has a value but that no tool declares', () => {
    const text = lastText({
      template: '[{notes}] {user_input}',
      values: { notes: 'secret notes' },
      known: ['context'],
      messages: [{ role: 'user', content: 'q' }],
    });
    expect(text).toBe(`[{notes}] ${framed('q')}`);
  });
});

describe('renderMessages empty values and framing', () => {
  it('removes known placeholders that have no value or an empty one', () => {
    const text = lastText({
      template: 'A{file}B{context}C{user_input}D',
      values: { file: '' },
      messages: [{ role: 'user', content: 'q' }],
    });
    expect(text).toBe(`ABC${framed('q')}D`);
  });

  it('removes {user_input} when the user text is empty', () => {
    expect(lastText({ template: '<{user_input}>', messages: [{ role: 'user', content: '' }] })).toBe('<>');
  });

  it('frames user input and every non-empty value with blank lines, as LAMB does', () => {
    const text = lastText({
      template: 'Context:{context}File:{file}Question:{user_input}End',
      values: { context: 'the context', file: 'the file' },
      messages: [{ role: 'user', content: 'the question' }],
    });
    expect(text).toBe('Context:\n\nthe context\n\nFile:\n\nthe file\n\nQuestion:\n\nthe question\n\nEnd');
  });

  it('uses the text parts of the last message joined by spaces as user input', () => {
    const text = lastText({
      template: '{user_input}',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'first part' },
            { type: 'text', text: 'second part' },
          ],
        },
      ],
    });
    expect(text).toBe(framed('first part second part'));
  });
});

describe('renderMessages sources after {context}', () => {
  const sources: Source[] = [
    { title: 'Intro', url: 'https://example.org/intro', similarity: 0.87 },
    { title: 'Chapter 2', url: 'https://example.org/ch2', similarity: 0.5 },
  ];

  it('lists the context sources, numbered, after the context inside its framing', () => {
    const text = lastText({ template: '{context}', values: { context: 'CTX' }, contextSources: sources });
    expect(text).toBe(
      '\n\nCTX\n\n## Available Sources\n\n1. [Intro](https://example.org/intro) (similarity: 0.870)\n2. [Chapter 2](https://example.org/ch2) (similarity: 0.500)\n\n\n',
    );
  });

  it('adds no source list where {context} is empty, and none after other placeholders', () => {
    expect(lastText({ template: '[{context}]', contextSources: sources })).toBe('[]');
    const text = lastText({ template: '{file}', values: { file: 'FILE' }, contextSources: sources });
    expect(text).toBe(framed('FILE'));
  });

  it('formats a source without url or similarity with an empty link and no similarity', () => {
    expect(formatSourceList([])).toBe('');
    expect(formatSourceList([{ title: 'Bare' }])).toBe('\n\n## Available Sources\n\n1. [Bare]()\n');
  });
});

describe('renderMessages template fallbacks and message order', () => {
  it('sends the original last message when there is no template and no tool produced anything', () => {
    const last: ChatMessage = { role: 'user', content: 'plain {context} question', name: 'learner' };
    const messages = render({ template: '', values: { context: '', file: '' }, messages: [last] });
    expect(messages).toEqual([last]);
  });

  it('uses the default template when there is no template but a tool produced output', () => {
    const text = lastText({
      template: '',
      values: { context: 'CTX' },
      messages: [{ role: 'user', content: 'q' }],
      defaultTemplate: 'DEFAULT {context} / {user_input}',
    });
    expect(text).toBe(`DEFAULT ${framed('CTX')} / ${framed('q')}`);
  });

  it('puts the system prompt first, then the history unchanged, then the rendered last message', () => {
    const history: ChatMessage[] = [
      { role: 'user', content: 'earlier question {context}' },
      { role: 'assistant', content: 'earlier answer' },
    ];
    const messages = render({
      systemPrompt: 'You are a tutor.',
      template: 'T:{user_input}',
      messages: [...history, { role: 'user', content: 'now' }],
    });
    expect(messages).toEqual([
      { role: 'system', content: 'You are a tutor.' },
      ...history,
      { role: 'user', content: `T:${framed('now')}` },
    ]);
  });

  it('adds no system message when the system prompt is empty', () => {
    expect(render({ systemPrompt: '', template: '{user_input}' }).map((message) => message.role)).toEqual(['user']);
  });

  it('returns only the system prompt when there are no messages', () => {
    expect(render({ systemPrompt: 'sys', messages: [] })).toEqual([{ role: 'system', content: 'sys' }]);
  });
});

describe('renderMessages and vision', () => {
  const image = { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } };
  const imageMessage = (text: string): ChatMessage => ({ role: 'user', content: [{ type: 'text', text }, image] });

  it('with vision keeps the image parts of the last message after the rendered text part', () => {
    const messages = render({ vision: true, template: 'Look:{user_input}', messages: [imageMessage('what is this?')] });
    expect(messages.at(-1)?.content).toEqual([{ type: 'text', text: `Look:${framed('what is this?')}` }, image]);
  });

  it('with vision keeps image parts in the history and in an untemplated last message', () => {
    const messages = render({
      vision: true,
      template: '',
      messages: [imageMessage('first'), { role: 'assistant', content: 'a cat' }, imageMessage('second')],
    });
    expect(messages).toEqual([imageMessage('first'), { role: 'assistant', content: 'a cat' }, imageMessage('second')]);
  });

  it('without vision drops image parts from the rendered last message', () => {
    const messages = render({ vision: false, template: 'Look:{user_input}', messages: [imageMessage('what is this?')] });
    expect(messages.at(-1)?.content).toBe(`Look:${framed('what is this?')}`);
  });

  it('without vision (capabilities absent) drops image parts from the history and an untemplated last message', () => {
    const messages = render({
      template: '',
      messages: [imageMessage('first'), { role: 'assistant', content: 'a cat' }, imageMessage('second')],
    });
    expect(messages).toEqual([
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'a cat' },
      { role: 'user', content: 'second' },
    ]);
  });
});

describe('substitutePlaceholders', () => {
  it('replaces known names (absent ones with nothing) and leaves unknown ones, in one pass', () => {
    const known = new Set(['a', 'b']);
    expect(substitutePlaceholders('{a}-{b}-{c}', { a: '{b}' }, known)).toBe('{b}--{c}');
  });
});
