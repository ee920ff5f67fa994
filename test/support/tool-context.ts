/**
 * Builds the ToolContext a function tool or a prompt processor receives, for tests that call a
 * plugin directly: a plain assistant, one user message, ports that refuse everything (the tools
 * under test do not use them), and the requester, integrations and signal the test chooses.
 */
import { AppError } from '../../src/errors/app-error.js';
import type { AssistantSnapshot } from '../../src/pipeline/assistant-metadata/assistant-snapshot.js';
import { serverFetch } from '../../src/pipeline/upstream/outbound-fetch.js';
import type { Integrations, Requester, ToolModels } from '../../src/pipeline/plugin-contract/ports.js';
import type { ToolContext } from '../../src/pipeline/plugin-contract/tool-definition.js';

export const TEST_ASSISTANT: AssistantSnapshot = {
  id: 11,
  name: 'Integration tools test assistant',
  ownerId: 1,
  organizationId: 1,
  systemPrompt: '',
  promptTemplate: '',
  metadata: { _format_version: 2 },
  ragCollections: [],
  ragTopK: 3,
};

type MoodleIntegration = NonNullable<Integrations['moodle']>;

/** The Moodle integration a test's fake Moodle answers for, with the server's defaults and what the test overrides. */
export function moodleIntegration(
  connection: { apiUrl: string; token: string },
  overrides: Partial<MoodleIntegration> = {},
): MoodleIntegration {
  return {
    ...connection,
    timeoutMilliseconds: 2_000,
    responseBytesMaximum: 4_194_304,
    fetch: serverFetch,
    ...overrides,
  };
}

/** Weather endpoints nobody listens on: a test that should not reach Open-Meteo fails loudly if it does. */
export const UNREACHABLE_WEATHER: Integrations['weather'] = {
  geocodingUrl: 'http://127.0.0.1:9/v1/search',
  forecastUrl: 'http://127.0.0.1:9/v1/forecast',
  timeoutMilliseconds: 1_000,
  responseBytesMaximum: 4_194_304,
};

export interface ToolContextOptions {
  requester?: Requester;
  integrations?: Partial<Integrations>;
  signal?: AbortSignal;
  assistant?: AssistantSnapshot;
}

function refuse(port: string): never {
  throw new AppError('not_found', `no ${port} in this test`);
}

/** Models that refuse every call: the tools under test make none. */
const NO_MODELS: ToolModels = {
  smallFast: async () => undefined,
  assistant: { name: 'none/none', complete: async () => refuse('models') },
  deepAnalysis: {
    passages: 40,
    passagesMaximum: 200,
    batchPassages: 8,
    batchesMaximum: 10,
    parallelBatches: 4,
    tokensMaximum: 60_000,
    milliseconds: 25_000,
    summaryTokensMaximum: 400,
    answerTokensMaximum: 1_000,
  },
};

export function buildToolContext(options: ToolContextOptions = {}): ToolContext {
  return {
    assistant: options.assistant ?? TEST_ASSISTANT,
    messages: [{ role: 'user', content: 'hello' }],
    signal: options.signal ?? new AbortController().signal,
    files: { readText: async () => refuse('files') },
    rubrics: { evaluation: async () => refuse('rubrics') },
    knowledge: {
      query: async () => refuse('knowledge bases'),
      listDocuments: async () => refuse('knowledge bases'),
      graph: async () => refuse('knowledge bases'),
    },
    queryRewriter: { rewrite: async () => undefined },
    requester: options.requester ?? { userId: 1, email: 'learner@merino.test' },
    integrations: { weather: UNREACHABLE_WEATHER, ...options.integrations },
    assistants: { check: async () => refuse('assistants'), run: async () => refuse('assistants') },
    mcpServers: { tools: async () => refuse('MCP servers'), call: async () => refuse('MCP servers') },
    models: NO_MODELS,
  };
}
