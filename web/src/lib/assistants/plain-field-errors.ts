/**
 * Save errors in a teacher's words. The server checks tool configs against their JSON schemas and
 * names problems as a validator does ("… must NOT have fewer than 1 items", "… is required"); for the problems a teacher meets most, the form says what to do
 * instead, at the field it concerns. Other messages pass as the server wrote them.
 */
import type { FieldErrors } from '$lib/api/field-errors';
import { t } from '$lib/i18n/translate.svelte';

const NO_KNOWLEDGE_BASE = /fewer than 1 item|is required|required property '?collections'?/i;

/** The path the problem is about: a missing `collections` is named at its config, and belongs at the field. */
function pathOf(path: string, message: string): string {
  if (/required property '?collections'?/i.test(message) && !path.endsWith('collections')) return `${path}.collections`;
  return path;
}

export function plainFieldErrors(errors: FieldErrors): FieldErrors {
  const plain: FieldErrors = {};
  for (const [path, message] of Object.entries(errors)) {
    const placed = pathOf(path, message);
    const aboutKnowledgeBases = /(^|\.)(rag_)?collections$/.test(placed) && NO_KNOWLEDGE_BASE.test(message);
    plain[placed] ??= aboutKnowledgeBases ? t('studio.pickKnowledgeBase') : message;
  }
  return plain;
}
