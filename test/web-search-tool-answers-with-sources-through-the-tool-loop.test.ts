/**
 * Proves the `web_search` tool through the real pipeline and tool loop over loopback HTTP, on both
 * dialects, with the official OpenAI SDK against /v1/chat/completions and a fake model that calls
 * it: each provider (SearXNG, Brave, Tavily, from their fakes' real wire formats) answers with
 * numbered results that come back as sources with title, URL and snippet, streamed and not; the
 * read-the-page step gives the model the readable text of the top pages and shows a status step
 * per search and per page; every hostile page (huge, slow, endless redirects, a redirect to a
 * private address, a wrong content type, a script-only page) becomes a readable reason in the tool
 * result, never a failed chat; WEB_SEARCH_SEARCHES_MAX and WEB_SEARCH_PAGES_MAX hold per request;
 * and the tool is not offered while the organization sets no provider.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeOpenAiServer, type FakeOpenAiServer, toolResultsIn } from './fakes/fake-openai-server.js';
import { startFakeWebSearchServer, type FakeWebSearchServer } from './fakes/fake-web-search-server.js';
import { startFakeWebSite, type FakeWebSite } from './fakes/fake-web-site-server.js';
import { TEST_DIALECTS } from './support/test-databases.js';
import { createUser, loginAsAdmin, request, startTestServer, type CreatedUser, type TestServer } from './support/test-server.js';
import { possiblyUnset } from './support/possibly-unset.js';

const BRAVE_KEY = 'BSA-pipeline-brave-key-000111';
const TAVILY_KEY = 'tvly-pipeline-tavily-key-222333';
const PAGE_BYTES_MAXIMUM = 65_536;

describe.each(TEST_DIALECTS)('the web_search tool in the tool loop on %s', (dialect) => {
  let model: FakeOpenAiServer;
  let search: FakeWebSearchServer;
  let site: FakeWebSite;
  let server: TestServer;
  let adminToken: string;
  let learner: CreatedUser;
  let organizationId: number;
  let snippetsModel: string;
  let readingModel: string;

  const chatRequests = () => model.requests.filter((recorded) => recorded.path.endsWith('/chat/completions'));
  const setWebSearch = (value: unknown) =>
    request(server, 'PATCH', `/api/organizations/${organizationId}/providers`, { token: adminToken, body: { web_search: value } });
  const client = () => new OpenAI({ apiKey: learner.token, baseURL: `${server.baseUrl}/v1`, maxRetries: 0 });
  const ask = (assistantModel: string, question = 'Search the web, please.') =>
    client().chat.completions.create({ model: assistantModel, messages: [{ role: 'user', content: question }] });
  const pages = (...paths: string[]) =>
    paths.map((path, index) => ({ title: `Page ${index + 1}`, url: `${site.origin}${path}`, snippet: `Snippet about ${path} & more` }));

  async function createAssistant(name: string, config: Record<string, unknown>): Promise<string> {
    const created = await request(server, 'POST', '/api/assistants', {
      token: adminToken,
      body: {
        name,
        system_prompt: 'Answer with sources.',
        metadata: {
          assistant_type: 'multi_tool',
          connector: 'openai',
          llm: 'gpt-4o-mini',
          tools: [{ type: 'web_search', enabled: true, config }],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    await request(server, 'PUT', `/api/assistants/${created.body.id}/publish`, { token: adminToken, body: { published: true } });
    return `lamb_assistant.${created.body.id}`;
  }

  beforeAll(async () => {
    model = await startFakeOpenAiServer();
    search = await startFakeWebSearchServer({ braveKey: BRAVE_KEY, tavilyKey: TAVILY_KEY });
    site = await startFakeWebSite({ hugeBytes: PAGE_BYTES_MAXIMUM * 3 });
    server = await startTestServer(dialect, {
      environment: {
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: model.baseUrl,
        WEB_SEARCH_SEARCHES_MAX: '2',
        WEB_SEARCH_PAGES_MAX: '2',
        WEB_PAGE_MAX_BYTES: String(PAGE_BYTES_MAXIMUM),
        WEB_PAGE_TIMEOUT_MS: '1000',
        WEB_PAGE_REDIRECTS_MAX: '3',
        WEB_PAGE_TEXT_MAX_CHARS: '200',
      },
    });
    adminToken = await loginAsAdmin(server);
    organizationId = (await request(server, 'GET', '/api/me', { token: adminToken })).body.organization_id;
    learner = await createUser(server, adminToken, { email: `ws-learner-${dialect}@school.test`, role: 'learner' });
    snippetsModel = await createAssistant('Web snippets', { results: 3 });
    readingModel = await createAssistant('Web reader', { results: 3, read_pages: 2 });
  }, 120_000);

  beforeEach(async () => {
    model.reset();
    search.reset();
    site.reset();
    expect((await setWebSearch({ provider: 'searxng', url: search.searxngUrl })).status).toBe(200);
  });

  afterAll(async () => {
    await possiblyUnset(server)?.close();
    await possiblyUnset(model)?.close();
    await possiblyUnset(search)?.close();
    await possiblyUnset(site)?.close();
  });

  it.each([
    ['searxng', () => ({ provider: 'searxng', url: search.searxngUrl })],
    ['brave', () => ({ provider: 'brave', url: search.braveUrl, api_key: BRAVE_KEY })],
    ['tavily', () => ({ provider: 'tavily', url: search.tavilyUrl, api_key: TAVILY_KEY })],
  ])('answers from %s with numbered results returned as sources (title, URL, snippet)', async (_name, settings) => {
    expect((await setWebSearch(settings())).status).toBe(200);
    search.setResults(pages('/articles/photosynthesis', '/articles/water-cycle', '/notes.txt', '/gone'));
    model.enqueue(
      { toolCalls: [{ id: 's1', name: 'web_search', arguments: '{"query":"photosynthesis"}' }] },
      { text: 'Plants use light [1].' },
    );
    const answer = await ask(snippetsModel);
    expect(answer.choices[0]!.message.content).toBe('Plants use light [1].');
    expect(chatRequests()[0]!.body.tools.map((tool: any) => tool.function.name)).toEqual(['web_search']);
    const result = toolResultsIn(chatRequests()[1])[0]!;
    expect(result).toContain(`[1] Page 1 (${site.origin}/articles/photosynthesis)`);
    expect(result).toContain('Snippet about /articles/photosynthesis & more');
    expect(result).toContain('[3] Page 3');
    expect(result).not.toContain('[4]');
    expect(result).not.toContain('<strong>');
    const sources = (answer as unknown as { sources: Array<Record<string, unknown>> }).sources;
    expect(sources.map((source) => [source.title, source.url, source.text])).toEqual([
      ['Page 1', `${site.origin}/articles/photosynthesis`, 'Snippet about /articles/photosynthesis & more'],
      ['Page 2', `${site.origin}/articles/water-cycle`, 'Snippet about /articles/water-cycle & more'],
      ['Page 3', `${site.origin}/notes.txt`, 'Snippet about /notes.txt & more'],
    ]);
    expect(site.fetchedPaths()).toEqual([]);
    const sent = search.requests.at(-1)!;
    expect(`${sent.path} ${JSON.stringify(sent.body ?? {})}`).toContain('photosynthesis');
    expect(JSON.stringify(answer)).not.toContain(BRAVE_KEY);
    expect(JSON.stringify(answer)).not.toContain(TAVILY_KEY);
  });

  it('reads the top pages when set to, streaming a status step for the search and for each page', async () => {
    search.setResults(pages('/articles/photosynthesis', '/notes.txt', '/articles/water-cycle'));
    model.enqueue({ toolCalls: [{ id: 'r1', name: 'web_search', arguments: '{"query":"photosynthesis"}' }] }, { text: 'Chlorophyll [1].' });
    const response = await fetch(`${server.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${learner.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: readingModel, stream: true, messages: [{ role: 'user', content: 'photosynthesis?' }] }),
    });
    const text = await response.text();
    const chunks = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)));
    const statuses = chunks.filter((chunk) => chunk.status).map((chunk) => `${chunk.status.state}: ${chunk.status.message}`);
    const host = new URL(site.origin).host;
    expect(statuses).toEqual(
      expect.arrayContaining([
        'running: Searching the web with SearXNG',
        'done: Found 3 web results with SearXNG',
        `running: Reading a page from ${host}`,
        `done: Read a page from ${host}`,
      ]),
    );
    expect(statuses.filter((status) => status === `done: Read a page from ${host}`)).toHaveLength(2);
    expect(chunks.flatMap((chunk) => chunk.sources ?? []).map((source: any) => source.url)).toContain(
      `${site.origin}/articles/photosynthesis`,
    );
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const result = toolResultsIn(chatRequests()[1])[0]!;
    expect(result).toContain('Page text:\nBy the Open Science Notes team\n\nPhotosynthesis is the process');
    expect(result).not.toContain('Log in');
    expect(result).not.toContain('analytics');
    expect(result).toContain('WEB_PAGE_TEXT_MAX_CHARS');
    expect(result).toContain('Revision notes.');
    expect(site.fetchedPaths()).toEqual(expect.arrayContaining(['/articles/photosynthesis', '/notes.txt']));
    expect(site.fetchedPaths()).not.toContain('/articles/water-cycle');
  });

  it.each([
    ['/huge', 'larger than WEB_PAGE_MAX_BYTES'],
    ['/huge-declared', 'larger than WEB_PAGE_MAX_BYTES'],
    ['/slow', 'did not send the page within 1000 ms'],
    ['/redirect-loop', 'redirected more than 3 times'],
    ['/redirect-private', 'Refused: 169.254.169.254 is a private or internal address'],
    ['/photo.png', 'sent image/png, not a web page'],
    ['/app', 'the page needs JavaScript'],
  ])('turns the hostile page %s into a readable reason in the tool result, never a failed chat', async (path, reason) => {
    search.setResults(pages(path, '/articles/water-cycle'));
    model.enqueue({ toolCalls: [{ id: 'h1', name: 'web_search', arguments: '{"query":"anything"}' }] }, { text: 'Done.' });
    const answer = await ask(readingModel);
    expect(answer.choices[0]!.message.content).toBe('Done.');
    const result = toolResultsIn(chatRequests()[1])[0]!;
    expect(result).toContain(`[1] Page 1 (${site.origin}${path})`);
    expect(result).toContain(`Page not read: `);
    expect(result).toContain(reason);
    expect(result).toContain('The water cycle describes how water evaporates');
  });

  it('holds WEB_SEARCH_SEARCHES_MAX and WEB_SEARCH_PAGES_MAX across the calls of one request', async () => {
    search.setResults(pages('/articles/photosynthesis', '/articles/water-cycle', '/notes.txt'));
    model.enqueue(
      { toolCalls: [{ id: 'b1', name: 'web_search', arguments: '{"query":"one"}' }] },
      { toolCalls: [{ id: 'b2', name: 'web_search', arguments: '{"query":"two"}' }] },
      { toolCalls: [{ id: 'b3', name: 'web_search', arguments: '{"query":"three"}' }] },
      { text: 'Enough.' },
    );
    const answer = await ask(readingModel);
    expect(answer.choices[0]!.message.content).toBe('Enough.');
    const results = toolResultsIn(chatRequests()[3]);
    expect(results[0]).toContain('Page text:');
    expect(results[1]).not.toContain('Page text:');
    expect(results[2]).toContain('WEB_SEARCH_SEARCHES_MAX');
    expect(search.requests).toHaveLength(2);
    expect(site.fetchedPaths()).toHaveLength(2);
  });

  it('reports a provider failure as a tool error the model reads, and the chat still answers', async () => {
    search.failWith(503);
    model.enqueue({ toolCalls: [{ id: 'f1', name: 'web_search', arguments: '{"query":"x"}' }] }, { text: 'The search is down.' });
    const answer = await ask(snippetsModel);
    expect(answer.choices[0]!.message.content).toBe('The search is down.');
    expect(toolResultsIn(chatRequests()[1])[0]).toMatch(/^Error: .*SearXNG at 127\.0\.0\.1:\d+ failed to answer \(HTTP 503\)/);
  });

  it('refuses a wrong Brave key as a rejected request, without repeating the key', async () => {
    expect((await setWebSearch({ provider: 'brave', url: search.braveUrl, api_key: 'BSA-wrong-key-999' })).status).toBe(200);
    model.enqueue({ toolCalls: [{ id: 'k1', name: 'web_search', arguments: '{"query":"x"}' }] }, { text: 'No.' });
    await ask(snippetsModel);
    const result = toolResultsIn(chatRequests()[1])[0]!;
    expect(result).toContain('Brave Search');
    expect(result).toContain('HTTP 422');
    expect(result).not.toContain('BSA-wrong-key-999');
  });

  it('is not offered while the organization sets no provider', async () => {
    expect((await setWebSearch(null)).status).toBe(200);
    model.enqueue({ text: 'I cannot search.' });
    const answer = await ask(snippetsModel);
    expect(answer.choices[0]!.message.content).toBe('I cannot search.');
    expect(chatRequests()[0]!.body.tools ?? []).toEqual([]);
    expect(search.requests).toHaveLength(0);
  });
});
