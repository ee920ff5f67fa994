/**
 * Inserting a placeholder such as `{context}` where the cursor is in the prompt template: the
 * new text and where the cursor goes, then putting the cursor there once the field shows it.
 */
import { tick } from 'svelte';

export interface Insertion {
  text: string;
  cursor: number;
}

/** The text with `inserted` at the field's selection (replacing it), or at the end without a field. */
export function insertionAt(text: string, inserted: string, field: HTMLTextAreaElement | undefined): Insertion {
  const start = field?.selectionStart ?? text.length;
  const end = field?.selectionEnd ?? text.length;
  return { text: text.slice(0, start) + inserted + text.slice(end), cursor: start + inserted.length };
}

/** After the bound value has reached the field, returns focus there with the cursor after the insertion. */
export async function placeCursor(field: HTMLTextAreaElement | undefined, cursor: number): Promise<void> {
  await tick();
  if (!field) return;
  field.focus();
  field.setSelectionRange(cursor, cursor);
}
