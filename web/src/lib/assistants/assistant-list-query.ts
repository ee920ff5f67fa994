/**
 * The assistant list's filter, search and page, read from and written to the page's URL query so
 * a filtered page can be bookmarked and shared, and turned into the API's query.
 */
import type { AssistantListParameters } from '$lib/api/assistants';

export type TypeFilter = 'all' | 'classic' | 'multi_tool' | 'orchestrator';

export interface AssistantListQuery {
  type: TypeFilter;
  search: string;
  /** 1-based. */
  page: number;
}

export const ASSISTANT_PAGE_SIZE = 10;

const TYPE_FILTERS: readonly TypeFilter[] = ['all', 'classic', 'multi_tool', 'orchestrator'];

function isTypeFilter(value: string | null): value is TypeFilter {
  return TYPE_FILTERS.some((filter) => filter === value);
}

/** Unknown or malformed values fall back to the first page of everything, so an old bookmark still opens. */
export function listQueryOf(parameters: URLSearchParams): AssistantListQuery {
  const type = parameters.get('type');
  const page = Number(parameters.get('page') ?? '1');
  return {
    type: isTypeFilter(type) ? type : 'all',
    search: (parameters.get('q') ?? '').trim(),
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
}

/** The page's own query string, leaving out defaults so the plain address stays plain. */
export function pageSearchOf(query: AssistantListQuery): string {
  const parameters = new URLSearchParams();
  if (query.type !== 'all') parameters.set('type', query.type);
  if (query.search !== '') parameters.set('q', query.search);
  if (query.page > 1) parameters.set('page', String(query.page));
  const text = parameters.toString();
  return text === '' ? '' : `?${text}`;
}

/** What the list asks the API for: one page, of the chosen type, matching the search. */
export function listParametersOf(query: AssistantListQuery): AssistantListParameters {
  return {
    limit: ASSISTANT_PAGE_SIZE,
    offset: (query.page - 1) * ASSISTANT_PAGE_SIZE,
    ...(query.type !== 'all' && { type: query.type }),
    ...(query.search !== '' && { q: query.search }),
  };
}

export function pageCountOf(total: number): number {
  return Math.max(1, Math.ceil(total / ASSISTANT_PAGE_SIZE));
}
