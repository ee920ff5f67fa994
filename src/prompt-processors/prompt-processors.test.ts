// Proves the real simple_augment and multi_augment processors, loaded through the registry: which placeholders each fills, which sources it lists, and that unknown braces survive.
import { beforeAll, describe, expect, it } from 'vitest';
import type { AssistantSnapshot } from '../pipeline/assistant-metadata/assistant-snapshot.js';
import type { Source } from '../pipeline/conversation/events.js';
import type { ChatMessage } from '../pipeline/conversation/messages.js';
import type { PromptProcessorDefinition } from '../pipeline/plugin-contract/prompt-processor-definition.js';
import { loadRegistries, type Registries } from '../pipeline/plugin-loading/registries.js';

let registries: Registries;
const logLines: string[] = [];

beforeAll(async () => {
  registries = await loadRegistries({ info: (line) => logLines.push(line), error: (line) => logLines.push(line) });
});

function processor(name: string): PromptProcessorDefinition {
  const definition = registries.promptProcessors.get(name);
  if (!definition) throw new Error(`prompt processor ${name} did not load: ${logLines.join(' | ')}`);
  return definition;
}

function assistant(promptTemplate: string, systemPrompt = ''): AssistantSnapshot {
  return {
    id: 3,
    name: 'Processor test assistant',
    ownerId: 1,
    organizationId: 1,
    systemPrompt,
    promptTemplate,
    metadata: { _format_version: 2 },
    ragCollections: [],
    ragTopK: 3,
  };
}

const framed = (text: string) => `\n\n${text}\n\n`;
const question: ChatMessage[] = [{ role: 'user', content: 'the question' }];
const sources: Source[] = [
  { title: 'Lecture 1', url: 'https://example.org/l1', similarity: 0.87, tool: 'simple_rag', placeholder: 'context' },
  { title: 'notes.md', url: 'files/1/notes.md', tool: 'single_file_rag', placeholder: 'file' },
];
const contextWithSources = framed('CONTEXT TEXT\n\n## Available Sources\n\n1. [Lecture 1](https://example.org/l1) (similarity: 0.870)\n');

function lastText(messages: ChatMessage[]): string {
  const content = messages.at(-1)?.content;
  if (typeof content !== 'string') throw new Error(`expected string content, got ${JSON.stringify(content)}`);
  return content;
}

describe('simple_augment', () => {
  it('fills only {user_input} and {context} (with the context sources) and empties the other known placeholders', () => {
    const known = registries.tools.placeholders();
    expect(known.has('file')).toBe(true);
    const messages = processor('simple_augment').process({
      assistant: assistant('U:{user_input}|C:{context}|F:{file}|X:{unknown}|J:{"k": 1}', 'system words'),
      messages: question,
      values: { context: 'CONTEXT TEXT', file: 'FILE TEXT' },
      knownPlaceholders: known,
      sources,
    });
    expect(messages[0]).toEqual({ role: 'system', content: 'system words' });
    expect(lastText(messages)).toBe(`U:${framed('the question')}|C:${contextWithSources}|F:|X:{unknown}|J:{"k": 1}`);
  });

  it('uses LAMB’s default context template when there is context but no template', () => {
    const text = lastText(
      processor('simple_augment').process({
        assistant: assistant(''),
        messages: question,
        values: { context: 'CONTEXT TEXT' },
        knownPlaceholders: registries.tools.placeholders(),
        sources: [],
      }),
    );
    expect(text).toContain(framed('CONTEXT TEXT'));
    expect(text).toContain(framed('the question'));
    expect(text).not.toMatch(/\{(context|user_input)\}/);
  });

  it('sends the original question when there is no template and only placeholders other than {context} have output', () => {
    const messages = processor('simple_augment').process({
      assistant: assistant(''),
      messages: question,
      values: { file: 'FILE TEXT' },
      knownPlaceholders: registries.tools.placeholders(),
      sources: [],
    });
    expect(messages).toEqual(question);
  });
});

describe('multi_augment', () => {
  it('fills every placeholder a registered tool declares, and lists only the context sources', () => {
    const known = registries.tools.placeholders();
    const declared = [...known].sort();
    const template = `${declared.map((name) => `${name}=[{${name}}]`).join(' ')} U=[{user_input}] X=[{unknown}] S=[{ context }]`;
    const values = Object.fromEntries(declared.map((name) => [name, name === 'context' ? 'CONTEXT TEXT' : `VALUE OF ${name}`]));
    const text = lastText(
      processor('multi_augment').process({ assistant: assistant(template), messages: question, values, knownPlaceholders: known, sources }),
    );

    const expected = `${declared.map((name) => `${name}=[${name === 'context' ? contextWithSources : framed(`VALUE OF ${name}`)}]`).join(' ')} U=[${framed('the question')}] X=[{unknown}] S=[{ context }]`;
    expect(text).toBe(expected);
    expect(text).not.toContain('[notes.md]');
  });

  it('empties declared placeholders no tool wrote', () => {
    const text = lastText(
      processor('multi_augment').process({
        assistant: assistant('A{file}B{context}C{user_input}'),
        messages: question,
        values: {},
        knownPlaceholders: registries.tools.placeholders(),
        sources: [],
      }),
    );
    expect(text).toBe(`ABC${framed('the question')}`);
  });

  it('without a template gives each non-empty tool output its own section before the question', () => {
    const text = lastText(
      processor('multi_augment').process({
        assistant: assistant(''),
        messages: question,
        values: { context: '', file: 'FILE TEXT' },
        knownPlaceholders: registries.tools.placeholders(),
        sources: [],
      }),
    );
    expect(text).toContain(`## file\n${framed('FILE TEXT')}`);
    expect(text).not.toContain('## context');
    expect(text).toContain(framed('the question'));
    expect(text).not.toMatch(/\{(file|user_input)\}/);
  });

  it('sends the original question when there is no template and no tool output', () => {
    const messages = processor('multi_augment').process({
      assistant: assistant(''),
      messages: question,
      values: { file: '' },
      knownPlaceholders: registries.tools.placeholders(),
      sources: [],
    });
    expect(messages).toEqual(question);
  });
});
