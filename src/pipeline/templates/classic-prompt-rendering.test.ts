// Proves LAMB's classic rendering (simple_augment, moodle_augment): only {context} of the tools' values is filled, followed by the sources of the tools that wrote {context} and no others; other known placeholders are emptied; inline values are substituted as given; an assistant without a template that retrieved context uses LAMB's default template word for word.
import { describe, expect, it } from 'vitest';
import type { AssistantSnapshot } from '../assistant-metadata/assistant-snapshot.js';
import type { Source } from '../conversation/events.js';
import { CLASSIC_DEFAULT_TEMPLATE, renderClassicPrompt } from './template-rendering.js';

function assistant(promptTemplate: string): AssistantSnapshot {
  return {
    id: 3,
    name: 'Classic',
    ownerId: 1,
    organizationId: 1,
    systemPrompt: 'Be kind.',
    promptTemplate,
    metadata: { _format_version: 2 },
    ragCollections: [],
    ragTopK: 3,
  };
}

const SOURCES: Source[] = [
  { title: 'notes.pdf', url: 'https://example.org/notes.pdf', similarity: 0.5, placeholder: 'context' },
  { title: 'rubric', placeholder: 'rubric' },
];

function lastContent(promptTemplate: string, values: Record<string, string>, inline?: Record<string, string>): unknown {
  const messages = renderClassicPrompt(
    {
      assistant: assistant(promptTemplate),
      messages: [{ role: 'user', content: 'Why?' }],
      values,
      knownPlaceholders: new Set(['context', 'rubric', 'moodle_user']),
      sources: SOURCES,
    },
    inline,
  );
  expect(messages[0]).toEqual({ role: 'system', content: 'Be kind.' });
  return messages.at(-1)!.content;
}

describe('classic rendering', () => {
  it('fills {context} with its sources only, empties other tool placeholders and frames the question', () => {
    const content = lastContent('C:{context}R:{rubric}Q:{user_input}', { context: 'Cells divide.', rubric: 'Grade A' });
    expect(content).toBe(
      'C:\n\nCells divide.\n\n## Available Sources\n\n1. [notes.pdf](https://example.org/notes.pdf) (similarity: 0.500)\n\n\nR:Q:\n\nWhy?\n\n',
    );
  });

  it('empties {context} when no tool wrote it', () => {
    expect(lastContent('C:{context}Q:{user_input}', { rubric: 'Grade A' })).toBe('C:Q:\n\nWhy?\n\n');
  });

  it("uses LAMB's default template when the assistant has none and context was retrieved", () => {
    expect(CLASSIC_DEFAULT_TEMPLATE).toBe(
      'Use the following context to answer the question. If the context does not contain the answer, say you do not know.\n\nContext:\n{context}\n\nQuestion: {user_input}',
    );
    const content = lastContent('', { context: 'Cells divide.' }) as string;
    expect(
      content.startsWith(
        'Use the following context to answer the question. If the context does not contain the answer, say you do not know.\n\nContext:\n\n\nCells divide.',
      ),
    ).toBe(true);
    expect(content.endsWith('Question: \n\nWhy?\n\n')).toBe(true);
  });

  it('substitutes inline values as given, without framing', () => {
    expect(lastContent('User {moodle_user} asks {user_input}', {}, { moodle_user: 'ana@school.test' })).toBe(
      'User ana@school.test asks \n\nWhy?\n\n',
    );
  });
});
