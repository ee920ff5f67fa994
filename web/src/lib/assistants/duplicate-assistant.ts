/**
 * Duplicates an assistant by exporting it and importing the export under a new name. The export
 * is the server's own definition of everything portable about an assistant, so a copy never
 * misses a field the list does not know of, and the import re-checks plugins and assistant tools
 * as the person copying (who will own the copy) and leaves it unpublished and unshared.
 */
import { exportAssistant, importAssistant } from '$lib/api/assistants';
import type { Assistant } from '$lib/api/assistant-types';

export async function duplicateAssistant(assistantId: number, copyName: string): Promise<Assistant> {
  const document = await exportAssistant(assistantId);
  return importAssistant({ ...document, name: copyName });
}
