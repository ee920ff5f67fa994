/**
 * The "View text" page's address and what it reads from it: /knowledge-bases/{id}/documents/{documentId},
 * opened at one passage with `?passage=<chunk index>`, and with `assistant_id` when the reader reaches
 * the text through an assistant that searched it (a learner following a chat source). Only whole
 * numbers are written into or read from the address.
 */

export interface DocumentTextPlace {
  knowledgeBaseId: number;
  documentId: number;
  chunkIndex?: number | undefined;
  assistantId?: number | undefined;
}

function isIndex(value: number | undefined): value is number {
  return value !== undefined && Number.isSafeInteger(value) && value >= 0;
}

export function documentTextHref(place: DocumentTextPlace): string {
  const query = new URLSearchParams();
  if (isIndex(place.chunkIndex)) query.set('passage', String(place.chunkIndex));
  if (isIndex(place.assistantId) && place.assistantId > 0) query.set('assistant_id', String(place.assistantId));
  const search = query.toString();
  const path = `/knowledge-bases/${encodeURIComponent(String(place.knowledgeBaseId))}/documents/${encodeURIComponent(String(place.documentId))}`;
  return search === '' ? path : `${path}?${search}`;
}

const WHOLE_NUMBER = /^\d{1,10}$/;

/** A whole number written in the address, or undefined for anything else (missing, negative, not a number, too long). */
export function wholeNumberParameter(value: string | null | undefined, minimum = 0): number | undefined {
  if (value === null || value === undefined || !WHOLE_NUMBER.test(value)) return undefined;
  const number = Number(value);
  return number >= minimum && number <= 2_147_483_647 ? number : undefined;
}
