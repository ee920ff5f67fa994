/**
 * Placeholders inserted into the prompt template never glue onto their neighbours: after a word
 * or another placeholder they start a new line, before a word they get a space, and inside
 * white space or at the start of an empty template they go in as they are.
 */
import { describe, expect, it } from 'vitest';
import { insertionAt } from './insert-at-cursor';

const at = (position: number) => ({ selectionStart: position, selectionEnd: position });

describe('inserting a placeholder at the cursor', () => {
  it('puts three placeholders clicked in a row on lines of their own', () => {
    let text = '';
    for (const placeholder of ['{user_input}', '{context}', '{rubric}']) text = insertionAt(text, placeholder, undefined).text;
    expect(text).toBe('{user_input}\n{context}\n{rubric}');
  });

  it('starts a new line after a word and leaves the cursor just after the placeholder', () => {
    expect(insertionAt('Question:', '{user_input}', at(9))).toEqual({ text: 'Question:\n{user_input}', cursor: 22 });
  });

  it('adds a space before a word that follows', () => {
    expect(insertionAt('Use this.', '{context}', at(0))).toEqual({ text: '{context} Use this.', cursor: 9 });
  });

  it('adds nothing where white space already separates', () => {
    expect(insertionAt('Notes: \nEnd', '{context}', at(7))).toEqual({ text: 'Notes: {context}\nEnd', cursor: 16 });
  });

  it('replaces a selection', () => {
    expect(insertionAt('Use OLD here', '{context}', { selectionStart: 4, selectionEnd: 7 })).toEqual({
      text: 'Use {context} here',
      cursor: 13,
    });
  });
});
