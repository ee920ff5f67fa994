/**
 * web_search — the function tool `web_search` (seed 004's web search): searches the web with the
 * organization's provider (SearXNG, Brave Search or Tavily, src/integrations/web-search/) and
 * answers with numbered results, each a source with its title, URL and snippet. With `read_pages`
 * set, it also reads the top results' pages (src/integrations/web-reading/readable-page.ts: the
 * outbound rules, size, time and redirect bounds, content types checked) and gives the model their
 * readable text, cut to WEB_PAGE_TEXT_MAX_CHARS. A page that cannot be read is named with its
 * reason in the result; the search still answers. Each search and each page read is a status step
 * under the call's own, and a request may search WEB_SEARCH_SEARCHES_MAX times and read
 * WEB_SEARCH_PAGES_MAX pages in all.
 */
import { AppError } from '../errors/app-error.js';
import { mapWithConcurrency } from '../integrations/map-with-concurrency.js';
import { readReadablePage } from '../integrations/web-reading/readable-page.js';
import { searchTheWeb, WEB_SEARCH_PROVIDER_NAMES, type WebSearchConnection } from '../integrations/web-search/web-search-request.js';
import type { WebSearchResult } from '../integrations/web-search/web-search-results.js';
import { defineTool, type Source, type ToolContext } from '../pipeline/plugin-api.js';

const FUNCTION_NAME = 'web_search';
const TOOL_NAME = 'web_search';
const QUERY_CHARACTERS_MAXIMUM = 400;
const RESULTS_MAXIMUM = 10;
const READ_PAGES_MAXIMUM = 5;
/** Pages are read a few at a time: quicker than one by one, gentler than all at once. */
const PAGES_READ_AT_ONCE = 3;

/** A result, with its page's readable text or the reason it could not be read. */
interface FoundResult extends WebSearchResult {
  pageText?: string;
  pageError?: string;
}

function connectionOf(context: ToolContext): WebSearchConnection {
  const connection = context.integrations.webSearch;
  if (connection === undefined)
    throw new AppError('assistant_misconfigured', 'The organization has no web search provider set; an administrator can set one.');
  return connection;
}

function status(context: ToolContext, id: string, state: 'running' | 'done' | 'error', message: string): void {
  const call = context.callStatus;
  call?.emit({ id: `${call.id}.${id}`, tool: TOOL_NAME, state, message, parent: call.id });
}

function cut(text: string, maximum: number): string {
  if (text.length <= maximum) return text;
  return `${text.slice(0, maximum)}\n[cut: the page has ${text.length} characters of text; only the first ${maximum} are given (WEB_PAGE_TEXT_MAX_CHARS)]`;
}

function hostOf(url: string): string {
  return new URL(url).host;
}

/** Reads one result's page under the bounds, turning a failure into its reason: one bad page never fails the search. */
async function readPage(
  result: WebSearchResult,
  index: number,
  context: ToolContext,
  connection: WebSearchConnection,
): Promise<FoundResult> {
  const host = hostOf(result.url);
  status(context, `page.${index + 1}`, 'running', `Reading a page from ${host}`);
  try {
    const page = await readReadablePage(result.url, { ...connection.pages, signal: context.signal });
    status(context, `page.${index + 1}`, 'done', `Read a page from ${host}`);
    return { ...result, pageText: cut(page.text, connection.pages.textCharactersMaximum) };
  } catch (error) {
    if (context.signal.aborted) throw error;
    const reason = error instanceof AppError ? error.message : `${host} could not be read.`;
    status(context, `page.${index + 1}`, 'error', `Could not read a page from ${host}`);
    return { ...result, pageError: reason };
  }
}

/** `[3] Title (https://…)` then the snippet and, when read, the page's text or why it was not. */
function numberedResult(result: FoundResult, number: number): string {
  const lines = [`[${number}] ${result.title} (${result.url})`];
  if (result.snippet !== '') lines.push(result.snippet);
  if (result.pageText !== undefined) lines.push(`Page text:\n${result.pageText}`);
  if (result.pageError !== undefined) lines.push(`Page not read: ${result.pageError}`);
  return lines.join('\n');
}

function sourceOf(result: FoundResult): Source {
  return { title: result.title, url: result.url, ...(result.snippet !== '' && { text: result.snippet }) };
}

export default defineTool({
  name: TOOL_NAME,
  displayName: 'Web search',
  description:
    "Lets the model search the web with the organization's search provider (SearXNG, Brave Search or Tavily), and optionally read the top results' pages.",
  category: 'research',
  version: '1.0',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      results: { type: 'integer', minimum: 1, maximum: RESULTS_MAXIMUM, default: 5, description: 'How many results each search gives.' },
      read_pages: {
        type: 'integer',
        minimum: 0,
        maximum: READ_PAGES_MAXIMUM,
        default: 0,
        description: "How many of the top results' pages to read and give the model as text (0: snippets only).",
      },
    },
  } as const,
  enabled: (context) => context.integrations.webSearch !== undefined,
  traceInput: (config) => ({ results: config.results, read_pages: config.read_pages }),
  function: {
    describe: () => ({
      name: FUNCTION_NAME,
      description:
        'Searches the web and returns the top results, numbered, with their title, URL and a snippet (and the text of the first pages when the assistant is set to read them). Use it for current events or facts outside the course material; cite results by their number.',
    }),
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['query'],
      properties: {
        query: {
          type: 'string',
          minLength: 1,
          maxLength: QUERY_CHARACTERS_MAXIMUM,
          description: 'What to search the web for, in a few words.',
        },
      },
    } as const,
    async call(argumentsFromModel, context, config) {
      const connection = connectionOf(context);
      const query = argumentsFromModel.query.trim();
      if (query === '')
        throw new AppError('invalid_body', `${FUNCTION_NAME}: "query" must say what to search for.`, { param: 'arguments' });
      if (connection.budget.searches <= 0)
        throw new AppError(
          'forbidden',
          'This request already made the most web searches it may (WEB_SEARCH_SEARCHES_MAX); answer with what you have.',
        );
      connection.budget.searches -= 1;
      const provider = WEB_SEARCH_PROVIDER_NAMES[connection.provider];
      status(context, 'search', 'running', `Searching the web with ${provider}`);
      let results: WebSearchResult[];
      try {
        results = await searchTheWeb({ connection, query, count: config.results, signal: context.signal });
      } catch (error) {
        status(context, 'search', 'error', `The web search with ${provider} failed`);
        throw error;
      }
      status(context, 'search', 'done', `Found ${results.length} web results with ${provider}`);
      if (results.length === 0) return { content: 'The web search found nothing for this query.' };

      const pagesToRead = Math.min(config.read_pages, connection.budget.pages, results.length);
      connection.budget.pages -= pagesToRead;
      const read = await mapWithConcurrency(results.slice(0, pagesToRead), PAGES_READ_AT_ONCE, (result) =>
        readPage(result, results.indexOf(result), context, connection),
      );
      const found: FoundResult[] = [...read, ...results.slice(pagesToRead)];
      const numbered = (firstNumber: number): string =>
        found.map((result, index) => numberedResult(result, firstNumber + index)).join('\n\n');
      return {
        content: numbered(1),
        numberedContent: numbered,
        sources: found.map(sourceOf),
        metadata: {
          provider: connection.provider,
          result_count: found.length,
          pages_read: read.filter((result) => result.pageText !== undefined).length,
        },
      };
    },
  },
});
