/** A new multi-tool assistant's template holds its tools' placeholders until the teacher edits it. */
import { describe, expect, it } from 'vitest';
import { defaultTemplate, followsTools } from './default-template';

describe('the default template of a new multi-tool assistant', () => {
  it('puts each context placeholder once on its own line, then the question', () => {
    expect(defaultTemplate(['context', 'rubric', 'context'])).toBe('{context}\n\n{rubric}\n\n{user_input}');
  });

  it('stays blank without a context tool, so the server writes its own sections', () => {
    expect(defaultTemplate([])).toBe('');
  });

  it('follows the tools only while the template is blank or as last written', () => {
    expect(followsTools('', undefined)).toBe(true);
    expect(followsTools('{context}\n\n{user_input}', '{context}\n\n{user_input}')).toBe(true);
    expect(followsTools('Answer kindly. {context}', '{context}\n\n{user_input}')).toBe(false);
  });
});
