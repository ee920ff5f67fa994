/**
 * The small world the API fuzz suite runs in: two organizations, a person in each role, and real
 * objects of every kind (assistants, a knowledge base with an ingested document and one that
 * remembers a web address, a crawl, rubrics, a file, API keys, a trace), all made through the HTTP API, so generated requests can aim at ids that
 * exist, belong to someone else, or never existed. Actors (whose tokens send requests) and
 * targets (whose ids requests aim at) are different people, so a generated request that disables
 * or demotes a user never silences the fuzzing itself.
 */
import { expect } from 'vitest';
import { postLaunch, signedLaunch } from '../fakes/lti-consumer.js';
import { insertOrganization } from '../../src/store/organizations-repository.js';
import { uploadDocument, waitForJob } from './knowledge-uploads.js';
import { createUser, login, loginAsAdmin, request, type TestServer } from './test-server.js';

export type RoleName = 'anonymous' | 'bad-credential' | 'learner' | 'creator' | 'organization-admin' | 'system-admin';

export interface FuzzWorld {
  /** The bearer token each role sends; undefined for anonymous. */
  tokens: Record<RoleName, string | undefined>;
  /** Real ids per kind of path parameter, including other people's and another organization's. */
  ids: {
    users: number[];
    apiKeys: number[];
    assistants: number[];
    /** Assistants that generated changes (PATCH, PUT, DELETE) aim at, so the others stay as built. */
    spareAssistants: number[];
    rubrics: string[];
    organizations: number[];
    /** Organizations that generated changes of an organization itself (rename, suspend, delete) aim at. */
    spareOrganizations: number[];
    knowledgeBases: number[];
    documents: number[];
    jobs: number[];
    files: number[];
    /** A learner's kept chat with one question and its answer, for the chat routes and their message ids. */
    chats: number[];
    messages: number[];
    traces: string[];
    toolNames: string[];
    templates: number[];
    /** A test case of the spare assistant and a run of it. */
    testCases: number[];
    testRuns: number[];
    /** LTI consumers, platforms and activities of the fuzz school. */
    ltiConsumers: number[];
    ltiPlatforms: number[];
    ltiActivities: number[];
    /** MCP servers of the fuzz school; listing their tools fails fast against a fake that is no MCP server. */
    mcpServers: number[];
    /** A crawl of same-site links, started at a loopback address that has no such page. */
    webCrawls: number[];
  };
  /** Sessions made only to be ended by generated logouts, so logging out never silences an actor. */
  disposableTokens: string[];
  /** An account whose password generated logins may get right. */
  login: { email: string; password: string };
  /** Where the fake model providers listen, for generated organization settings. */
  providerUrls: { openai: string; ollama: string };
  /** Model ids a chat may name. */
  models: string[];
}

function rubricBody(title: string, visibility: 'private' | 'organization'): Record<string, unknown> {
  const levels = (subject: string) => [
    { score: 2, label: 'Clear', description: `${subject} is clear` },
    { score: 1, label: 'Unclear', description: `${subject} is unclear` },
  ];
  return {
    title,
    criteria: [{ name: 'Thesis', description: 'The main argument', weight: 1, levels: levels('The thesis') }],
    scoringType: 'points',
    maxScore: 10,
    visibility,
  };
}

async function created(server: TestServer, token: string, path: string, body: unknown): Promise<any> {
  const response = await request(server, 'POST', path, { token, body });
  expect(response.status, `${path}: ${response.text}`).toBe(201);
  return response.body;
}

/** Two LTI consumers, a platform and an activity (made by a signed Instructor launch), for the LTI routes to aim at. */
async function ltiRegistrations(
  server: TestServer,
  adminToken: string,
  assistantId: number,
): Promise<{ ltiConsumers: number[]; ltiPlatforms: number[]; ltiActivities: number[] }> {
  const consumer = await created(server, adminToken, '/api/lti/consumers', { name: 'Fuzz Moodle' });
  const spare = await created(server, adminToken, '/api/lti/consumers', { name: 'Spare Moodle' });
  const platform = await created(server, adminToken, '/api/lti/platforms', {
    issuer: 'https://moodle.fuzz.example',
    client_id: 'fuzz-client',
    deployment_ids: ['1'],
    auth_login_url: 'https://moodle.fuzz.example/auth',
    auth_token_url: 'https://moodle.fuzz.example/token',
    jwks_url: 'https://moodle.fuzz.example/certs',
  });
  const url = `${server.baseUrl}/lti/launch`;
  const launched = await postLaunch(
    url,
    signedLaunch(
      { key: consumer.consumer_key as string, secret: consumer.consumer_secret as string },
      {
        url,
        parameters: {
          resource_link_id: 'fuzz-link',
          user_id: 'fuzz-teacher',
          roles: 'Instructor',
          custom_assistant_id: String(assistantId),
        },
      },
    ),
  );
  const me = await request(server, 'GET', '/api/me', { headers: { cookie: launched.cookie!.split(';')[0]! } });
  return { ltiConsumers: [consumer.id, spare.id], ltiPlatforms: [platform.id], ltiActivities: [me.body.lti.activity_id] };
}

async function uploadFile(
  server: TestServer,
  token: string,
  fileName: string,
  content: string,
): Promise<{ id: number; file_path: string }> {
  const form = new FormData();
  form.append('file', new Blob([content]), fileName);
  const response = await fetch(`${server.baseUrl}/api/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text);
}

export async function buildFuzzWorld(server: TestServer, providerUrls: FuzzWorld['providerUrls']): Promise<FuzzWorld> {
  const systemToken = await loginAsAdmin(server);
  const schoolId = await insertOrganization(server.store.db, 'fuzz-school', 'Fuzz school');
  const otherId = await insertOrganization(server.store.db, 'other-school', 'Other school');
  const spareOrganizationId = await insertOrganization(server.store.db, 'spare-school', 'Spare school');
  const person = (email: string, role: 'admin' | 'creator' | 'learner', organizationId: number) =>
    createUser(server, systemToken, { email, role, organization_id: organizationId });
  const [organizationAdmin, creator, learner, victim, otherCreator, leaver] = await Promise.all([
    person('org-admin@fuzz.test', 'admin', schoolId),
    person('creator@fuzz.test', 'creator', schoolId),
    person('learner@fuzz.test', 'learner', schoolId),
    person('victim@fuzz.test', 'learner', schoolId),
    person('creator@other.test', 'creator', otherId),
    // Only generated logouts use this person's sessions, and no generated request names them, so
    // no other request (a password reset, a user update) can end those sessions first.
    person('leaver@fuzz.test', 'learner', schoolId),
  ]);

  const echoMetadata = { connector: 'bypass', llm: 'simple-bypass', verbose: true };
  const published = await created(server, creator.token, '/api/assistants', {
    name: 'Published echo',
    system_prompt: 'You are a tutor.',
    prompt_template: 'Question: {user_input}',
    metadata: echoMetadata,
  });
  await request(server, 'PUT', `/api/assistants/${published.id}/publish`, { token: creator.token, body: { published: true } });
  const multiTool = await created(server, creator.token, '/api/assistants', {
    name: 'Private multi-tool',
    metadata: { assistant_type: 'multi_tool', connector: 'bypass', llm: 'debug-bypass', tools: [] },
  });
  const foreign = await created(server, otherCreator.token, '/api/assistants', {
    name: 'Other school echo',
    metadata: { connector: 'bypass', llm: 'simple-bypass' },
  });
  const spare = await created(server, creator.token, '/api/assistants', { name: 'Spare echo', metadata: echoMetadata });

  const knowledgeBase = await created(server, creator.token, '/api/knowledge-bases', { name: 'Cells' });
  const foreignKnowledgeBase = await created(server, otherCreator.token, '/api/knowledge-bases', { name: 'Rivers' });
  const uploaded = await uploadDocument(
    server,
    creator.token,
    knowledgeBase.id,
    'cells.md',
    '# Cells\n\nThe mitochondrion releases energy.\n',
  );
  expect(uploaded.status, uploaded.text).toBe(202);
  await waitForJob(server, creator.token, knowledgeBase.id, uploaded.body.job_id);
  // A document that remembers a web address, so refreshes are allowed (and fail: the fake has no such page).
  const fromTheWeb = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase.id}/documents`, {
    token: creator.token,
    body: {
      documents: [{ text: 'Cells divide by mitosis.', metadata: { title: 'Mitosis', source_url: `${providerUrls.openai}/mitosis` } }],
    },
  });
  expect(fromTheWeb.status, fromTheWeb.text).toBe(202);
  const fromTheWebDocument = fromTheWeb.body.documents[0] as { document_id: number; job_id: number };
  await waitForJob(server, creator.token, knowledgeBase.id, fromTheWebDocument.job_id);
  const crawl = await request(server, 'POST', `/api/knowledge-bases/${knowledgeBase.id}/web-crawls`, {
    token: creator.token,
    body: { url: `${providerUrls.openai}/course/`, depth: 1, pages: 2 },
  });
  expect(crawl.status, crawl.text).toBe(202);

  const rubric = await created(server, creator.token, '/api/rubrics', rubricBody('Essays', 'organization'));
  const foreignRubric = await created(server, otherCreator.token, '/api/rubrics', rubricBody('Private essays', 'private'));
  const file = await uploadFile(server, creator.token, 'notes.md', '# Notes\n\nPhotosynthesis makes sugar.\n');
  // Chats with these run the context tools and the real connectors (against the fake providers).
  const knowledgeTutor = await created(server, creator.token, '/api/assistants', {
    name: 'Knowledge tutor',
    prompt_template: 'Context:{context}\nRubric:{rubric}\nBrief:{file}\nQuestion:{user_input}',
    metadata: {
      assistant_type: 'multi_tool',
      connector: 'bypass',
      llm: 'debug-bypass',
      verbose: true,
      tools: [
        { type: 'simple_rag', config: { collections: [String(knowledgeBase.id)], top_k: 2 } },
        { type: 'rubric_rag', config: { rubric_id: rubric.rubricId, format: 'markdown' } },
        { type: 'single_file_rag', config: { file_path: file.file_path } },
      ],
    },
  });
  const openAiTutor = await created(server, creator.token, '/api/assistants', {
    name: 'OpenAI tutor',
    metadata: { connector: 'openai', llm: 'gpt-4o-mini', rag_processor: 'simple_rag' },
    rag_collections: String(knowledgeBase.id),
  });
  const ollamaTutor = await created(server, creator.token, '/api/assistants', {
    name: 'Ollama tutor',
    metadata: { connector: 'ollama', llm: 'llama3.1' },
  });
  for (const id of [knowledgeTutor.id, openAiTutor.id, ollamaTutor.id])
    await request(server, 'PUT', `/api/assistants/${id}/publish`, { token: creator.token, body: { published: true } });
  const lti = await ltiRegistrations(server, organizationAdmin.token, published.id as number);
  const mcpServers = await Promise.all(
    ['Fuzz tools', 'Spare tools'].map((name) =>
      created(server, organizationAdmin.token, '/api/mcp-servers', { name, url: `${providerUrls.openai}/mcp` }),
    ),
  );
  // A template, and a test case with a run on the spare assistant, for the ids of their routes.
  const template = await created(server, creator.token, '/api/templates', {
    kind: 'prompt',
    name: 'Fuzz template',
    system_prompt: 'Be kind.',
  });
  const testCase = await created(server, creator.token, `/api/assistants/${spare.id}/tests`, {
    name: 'Cells',
    kind: 'single_turn',
    turns: ['How do cells divide?'],
    expectations: [{ type: 'contains', phrases: ['mitosis'] }],
  });
  const testRun = await created(server, creator.token, `/api/assistants/${spare.id}/test-runs`, { cases: 'all' });
  const targetKey = await created(server, creator.token, '/api/api-keys', { name: 'target key' });
  const learnerKey = await created(server, learner.token, '/api/api-keys', { name: 'learner key' });

  const chat = await request(server, 'POST', '/v1/chat/completions', {
    token: learner.token,
    body: { model: `lamb_assistant.${published.id}`, messages: [{ role: 'user', content: 'hello' }] },
  });
  expect(chat.status, chat.text).toBe(200);
  expect(chat.body.trace_id).toBeTypeOf('string');
  const keptChat = await created(server, learner.token, '/api/chats', { assistant_id: published.id });
  const asked = await request(server, 'POST', `/api/chats/${keptChat.id}/messages`, { token: learner.token, body: { content: 'hello' } });
  expect(asked.status, asked.text).toBe(200);
  const keptMessages = (await request(server, 'GET', `/api/chats/${keptChat.id}`, { token: learner.token })).body.messages as Array<{
    id: number;
  }>;
  const disposableTokens = [
    leaver.token,
    await login(server, leaver.email, leaver.password),
    await login(server, leaver.email, leaver.password),
    await login(server, victim.email, victim.password),
    await login(server, otherCreator.email, otherCreator.password),
  ];
  const tools = await request(server, 'GET', '/lamb/v1/completions/tools', { token: creator.token });
  const toolNames: string[] = (Array.isArray(tools.body) ? tools.body : (tools.body?.tools ?? tools.body?.data ?? []))
    .map((tool: any) => tool.name)
    .filter((name: unknown) => typeof name === 'string');

  return {
    tokens: {
      anonymous: undefined,
      'bad-credential': 'mrs_not-a-real-session-token',
      learner: learnerKey.key ?? learner.token,
      creator: creator.token,
      'organization-admin': organizationAdmin.token,
      'system-admin': systemToken,
    },
    ids: {
      users: [victim.id, otherCreator.id],
      apiKeys: [targetKey.id],
      assistants: [published.id, multiTool.id, foreign.id, knowledgeTutor.id, openAiTutor.id, ollamaTutor.id],
      spareAssistants: [spare.id, foreign.id],
      rubrics: [rubric.rubricId, foreignRubric.rubricId],
      organizations: [schoolId, otherId],
      spareOrganizations: [spareOrganizationId],
      knowledgeBases: [knowledgeBase.id, foreignKnowledgeBase.id],
      documents: [uploaded.body.document_id, fromTheWebDocument.document_id],
      jobs: [uploaded.body.job_id],
      files: [file.id],
      chats: [keptChat.id],
      messages: keptMessages.map((message) => message.id),
      traces: [chat.body.trace_id],
      toolNames: toolNames.length > 0 ? toolNames : ['simple_rag'],
      templates: [template.id],
      testCases: [testCase.id],
      testRuns: [testRun.id],
      ...lti,
      mcpServers: mcpServers.map((mcpServer) => mcpServer.id as number),
      webCrawls: [crawl.body.id],
    },
    disposableTokens,
    providerUrls,
    login: { email: victim.email, password: victim.password },
    models: [
      `lamb_assistant.${published.id}`,
      `lamb_assistant.${multiTool.id}`,
      `lamb_assistant.${foreign.id}`,
      `lamb_assistant.${knowledgeTutor.id}`,
      `lamb_assistant.${openAiTutor.id}`,
      `lamb_assistant.${ollamaTutor.id}`,
      String(published.id),
      'Published echo',
    ],
  };
}
