/**
 * Inserting a placeholder such as `{context}` where the cursor is in the prompt template: the
 * new text and where the cursor goes, then putting the cursor there once the field shows it.
 * A placeholder never glues onto the text around it: one put right after a word or another
 * placeholder starts a new line, and one put right before a word gets a space after it, so
 * three clicks give `{user_input}`, `{context}` and `{rubric}` on lines of their own.
 */
import { tick } from 'svelte';

export interface Insertion {
  text: string;
  cursor: number;
}

/** The selection a field reports, or the end of the text without a field. */
export interface Selection {
  selectionStart: number;
  selectionEnd: number;
}

/** The text with `inserted` at the field's selection (replacing it), or at the end without a field. */
export function insertionAt(text: string, inserted: string, field: Selection | undefined): Insertion {
  const start = field?.selectionStart ?? text.length;
  const end = field?.selectionEnd ?? text.length;
  const before = text.slice(0, start);
  const after = text.slice(end);
  const lead = before !== '' && !/\s$/.test(before) ? '\n' : '';
  const trail = after !== '' && !/^\s/.test(after) ? ' ' : '';
  const placed = lead + inserted + trail;
  return { text: before + placed + after, cursor: start + lead.length + inserted.length };
}

/** After the bound value has reached the field, returns focus there with the cursor after the insertion. */
export async function placeCursor(field: HTMLTextAreaElement | undefined, cursor: number): Promise<void> {
  await tick();
  if (!field) return;
  field.focus();
  field.setSelectionRange(cursor, cursor);
}
