// Proves runAssistant end to end with the real registries, the bypass connector and an inline FileReader port: where single_file_rag's text lands, event order, the redacted trace, misconfiguration errors and the bypass models.
import { beforeAll, describe, expect, it } from 'vitest';
import type { AssistantMetadata } from './assistant-metadata/metadata-normalizer.js';
import { AppError } from '../errors/app-error.js';
import { serverPost } from '../outbound/outbound-post.js';
import { serverFetch } from './upstream/outbound-fetch.js';
import type { AssistantSnapshot } from './assistant-metadata/assistant-snapshot.js';
import type { PipelineEvent, StatusEvent } from './conversation/events.js';
import type { ChatMessage } from './conversation/messages.js';
import { buildToolContext } from '../../test/support/tool-context.js';
import type { FileReader, Integrations } from './plugin-contract/ports.js';
import { loadRegistries, type Registries } from './plugin-loading/registries.js';
import { runAssistant, type PipelineContext, type PipelineTrace } from './run-assistant.js';

const TEST_INTEGRATIONS: Integrations = {
  weather: {
    geocodingUrl: 'http://127.0.0.1:9/geocoding',
    forecastUrl: 'http://127.0.0.1:9/forecast',
    timeoutMilliseconds: 1_000,
    responseBytesMaximum: 4_194_304,
  },
};

const FILE_PATH = 'files/1/notes.md';
/** 17 characters × 80 = 1,360 characters. */
const FILE_TEXT = 'canary-file-7f3a '.repeat(80);
/** 40 characters. */
const USER_TEXT = 'user-canary-9b2c: what does my file say?';
const SYSTEM_PROMPT = 'You are a patient tutor.';

let registries: Registries;
const registryLog: string[] = [];

beforeAll(async () => {
  registries = await loadRegistries({ info: (line) => registryLog.push(line), error: (line) => registryLog.push(line) });
});

interface FileRead {
  filePath: string;
  charactersMaximum: number;
}

/** The FileReader port, implemented here: it serves one file and refuses every other path. */
function oneFileReader(reads: FileRead[] = []): FileReader {
  return {
    async readText(filePath, charactersMaximum) {
      reads.push({ filePath, charactersMaximum });
      if (filePath !== FILE_PATH) throw new AppError('not_found', `file ${filePath} does not exist`);
      return { text: FILE_TEXT.slice(0, charactersMaximum), truncated: FILE_TEXT.length > charactersMaximum };
    },
  };
}

function assistant(
  metadata: Omit<AssistantMetadata, '_format_version'>,
  promptTemplate = '',
  systemPrompt = SYSTEM_PROMPT,
): AssistantSnapshot {
  return {
    id: 42,
    name: 'Run test assistant',
    ownerId: 1,
    organizationId: 1,
    systemPrompt,
    promptTemplate,
    metadata: { _format_version: 2, ...metadata },
    ragCollections: [],
    ragTopK: 3,
  };
}

function pipelineContext(snapshot: AssistantSnapshot, overrides: Partial<PipelineContext> = {}): PipelineContext {
  return {
    assistant: snapshot,
    registries,
    files: oneFileReader(),
    rubrics: {
      evaluation: async () => {
        throw new AppError('not_found', 'Rubric not found.');
      },
    },
    knowledge: {
      query: async () => [],
      listDocuments: async () => [],
      graph: async () => ({ found: [], steps: [], reached: 0, hits: [] }),
    },
    queryRewriter: { rewrite: async () => undefined },
    requester: { userId: 1, email: 'learner@merino.test' },
    integrations: TEST_INTEGRATIONS,
    assistants: buildToolContext().assistants,
    mcpServers: buildToolContext().mcpServers,
    models: buildToolContext().models,
    provider: () => ({ fetch: serverFetch, post: serverPost(1_048_576) }),
    signal: new AbortController().signal,
    limits: {
      toolTimeoutMilliseconds: 5_000,
      upstreamTimeoutMilliseconds: 5_000,
      toolLoop: {
        iterations: 5,
        iterationsMaximum: 10,
        callTimeoutMilliseconds: 5_000,
        callTimeoutMillisecondsMaximum: 10_000,
        totalMilliseconds: 20_000,
        totalMillisecondsMaximum: 60_000,
        identicalCallsMaximum: 2,
        resultCharactersMaximum: 20_000,
      },
    },
    ...overrides,
  };
}

const userTurn = (content: string): ChatMessage => ({ role: 'user', content });

async function collect(events: AsyncIterable<PipelineEvent>): Promise<PipelineEvent[]> {
  const collected: PipelineEvent[] = [];
  for await (const event of events) collected.push(event);
  return collected;
}

function answerText(events: readonly PipelineEvent[]): string {
  return events.map((event) => (event.type === 'text-delta' ? event.text : '')).join('');
}

/** What debug-bypass answers: the exact messages the model would have received. */
function promptSent(events: readonly PipelineEvent[]): ChatMessage[] {
  return (JSON.parse(answerText(events)) as { messages: ChatMessage[] }).messages;
}

function statuses(events: readonly PipelineEvent[]): StatusEvent[] {
  return events.flatMap((event) => (event.type === 'status' ? [event.status] : []));
}

async function runError(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the run to fail');
}

describe('runAssistant with single_file_rag', () => {
  it('puts the file into {context} for a classic assistant with rag_processor single_file_rag and file_path', async () => {
    const reads: FileRead[] = [];
    const snapshot = assistant(
      { connector: 'bypass', llm: 'debug-bypass', rag_processor: 'single_file_rag', file_path: FILE_PATH },
      'Context:{context}Question:{user_input}',
    );
    const events = await collect(
      runAssistant({ messages: [userTurn(USER_TEXT)], parameters: {} }, pipelineContext(snapshot, { files: oneFileReader(reads) })),
    );

    expect(reads).toEqual([{ filePath: FILE_PATH, charactersMaximum: 50_000 }]);
    expect(promptSent(events)).toEqual([
      { role: 'system', content: SYSTEM_PROMPT },
      {
        role: 'user',
        content: `Context:\n\n${FILE_TEXT}\n\n## Available Sources\n\n1. [notes.md](${FILE_PATH})\n\n\nQuestion:\n\n${USER_TEXT}\n\n`,
      },
    ]);
  });

  it('puts the file into {file} for a multi-tool assistant, leaving {context} empty', async () => {
    const snapshot = assistant(
      {
        assistant_type: 'multi_tool',
        connector: 'bypass',
        llm: 'debug-bypass',
        tools: [{ type: 'single_file_rag', enabled: true, config: { file_path: FILE_PATH } }],
      },
      'File:{file}Context:{context}Question:{user_input}',
    );
    const events = await collect(runAssistant({ messages: [userTurn(USER_TEXT)], parameters: {} }, pipelineContext(snapshot)));
    expect(promptSent(events).at(-1)).toEqual({ role: 'user', content: `File:\n\n${FILE_TEXT}\n\nContext:Question:\n\n${USER_TEXT}\n\n` });
  });

  it('emits statuses, then the sources of context tools, then text deltas, then finish and usage, in that order', async () => {
    const snapshot = assistant(
      {
        assistant_type: 'multi_tool',
        connector: 'bypass',
        llm: 'debug-bypass',
        tools: [{ type: 'single_file_rag', enabled: true, config: { file_path: FILE_PATH } }],
      },
      '{file}{user_input}',
    );
    const events = await collect(runAssistant({ messages: [userTurn(USER_TEXT)], parameters: {} }, pipelineContext(snapshot)));

    const phases = events.map((event) => event.type).filter((type, index, types) => index === 0 || types[index - 1] !== type);
    expect(phases).toEqual(['status', 'sources', 'text-delta', 'finish', 'usage']);
    expect(statuses(events)).toEqual([
      { id: 'status-1', tool: 'single_file_rag', display_name: 'Single file', state: 'running', message: `reading file ${FILE_PATH}` },
      { id: 'status-1', tool: 'single_file_rag', display_name: 'Single file', state: 'done', message: `reading file ${FILE_PATH}` },
    ]);
    expect(events.filter((event) => event.type === 'text-delta').length).toBeGreaterThan(1);
    expect(events.find((event) => event.type === 'finish')).toEqual({ type: 'finish', finishReason: 'stop' });
    expect(events.find((event) => event.type === 'sources')).toEqual({
      type: 'sources',
      sources: [{ title: 'notes.md', url: FILE_PATH, tool: 'single_file_rag', placeholder: 'file' }],
    });
    const usage = events.find((event) => event.type === 'usage');
    expect(usage?.type === 'usage' && usage.usage.total_tokens).toBe(
      usage?.type === 'usage' && usage.usage.prompt_tokens + usage.usage.completion_tokens,
    );
  });

  it('emits no sources event when no tool produced sources', async () => {
    const snapshot = assistant({ connector: 'bypass', llm: 'simple-bypass' });
    const events = await collect(runAssistant({ messages: [userTurn('hi')], parameters: {} }, pipelineContext(snapshot)));
    expect(events.map((event) => event.type)).toEqual(['text-delta', 'finish', 'usage']);
  });

  it('goes on to the model with an empty placeholder and an error status when the file cannot be read', async () => {
    const snapshot = assistant(
      {
        assistant_type: 'multi_tool',
        connector: 'bypass',
        llm: 'debug-bypass',
        tools: [{ type: 'single_file_rag', enabled: true, config: { file_path: 'files/1/missing.md' } }],
      },
      '[{file}]{user_input}',
    );
    const events = await collect(runAssistant({ messages: [userTurn('q')], parameters: {} }, pipelineContext(snapshot)));
    expect(statuses(events).map((status) => status.state)).toEqual(['running', 'error']);
    expect(statuses(events)[1]?.message).toBe('reading file files/1/missing.md: file files/1/missing.md does not exist');
    expect(promptSent(events).at(-1)?.content).toBe('[]\n\nq\n\n');
    expect(events.some((event) => event.type === 'sources')).toBe(false);
  });

  it('reports a classic single_file_rag assistant without file_path as a config error and still answers', async () => {
    const reads: FileRead[] = [];
    const snapshot = assistant({ connector: 'bypass', llm: 'simple-bypass', rag_processor: 'single_file_rag' });
    const events = await collect(
      runAssistant({ messages: [userTurn('q')], parameters: {} }, pipelineContext(snapshot, { files: oneFileReader(reads) })),
    );
    expect(reads).toEqual([]);
    expect(statuses(events).at(-1)).toMatchObject({ tool: 'single_file_rag', state: 'error' });
    expect(statuses(events).at(-1)?.message).toContain('invalid config');
    expect(answerText(events)).toBe('q');
  });

  // LAMB's multi-tool entries may name their own placeholder ({plugin, placeholder, config}); the
  // planner routes the output there, so multi_augment's default template must be able to fill it.
  it('keeps the output of a tool routed to a custom placeholder when multi_augment uses its default template', async () => {
    const snapshot = assistant({
      assistant_type: 'multi_tool',
      connector: 'bypass',
      llm: 'debug-bypass',
      tools: [{ type: 'single_file_rag', enabled: true, config: { file_path: FILE_PATH, placeholder: 'notes' } }],
    });
    const events = await collect(runAssistant({ messages: [userTurn(USER_TEXT)], parameters: {} }, pipelineContext(snapshot)));
    const last = promptSent(events).at(-1)?.content;
    expect(last).not.toContain('{notes}');
    expect(typeof last === 'string' && last.includes(FILE_TEXT), 'the file text reaches the prompt').toBe(true);
  });
});

describe('runAssistant traces', () => {
  it('gives onTrace a prompt with length markers instead of the file and user text, and steps with safe inputs and sizes', async () => {
    const traces: PipelineTrace[] = [];
    const snapshot = assistant(
      {
        assistant_type: 'multi_tool',
        connector: 'bypass',
        llm: 'debug-bypass',
        verbose: true,
        tools: [{ type: 'single_file_rag', enabled: true, config: { file_path: FILE_PATH } }],
      },
      'File:{file}Question:{user_input}',
    );
    const conversation: ChatMessage[] = [
      userTurn('user-canary-early question'),
      { role: 'assistant', content: 'assistant-canary answer' },
      userTurn(USER_TEXT),
    ];
    const events = await collect(
      runAssistant({ messages: conversation, parameters: {} }, pipelineContext(snapshot, { onTrace: (trace) => traces.push(trace) })),
    );

    expect(traces).toHaveLength(1);
    const trace = traces[0]!;
    const promptText = JSON.stringify(trace.prompt);
    expect(promptText).toContain('[file: 1,360 chars]');
    expect(promptText).toContain('[user: 40 chars]');
    expect(promptText).toContain('[assistant: 23 chars]');
    for (const canary of ['canary-file-7f3a', 'user-canary', 'assistant-canary']) expect(JSON.stringify(trace)).not.toContain(canary);
    expect(trace.prompt[0]).toEqual({ role: 'system', content: SYSTEM_PROMPT });
    expect(trace.prompt.at(-1)?.content).toBe('File:\n\n[file: 1,360 chars]\n\nQuestion:\n\n[user: 40 chars]\n\n');

    expect(trace).toMatchObject({ assistantId: 42, connector: 'bypass', model: 'debug-bypass', promptProcessor: 'multi_augment' });
    expect(trace.steps).toEqual([
      {
        tool: 'single_file_rag',
        placeholder: 'file',
        input: { file_path: FILE_PATH, max_chars: 50_000 },
        durationMilliseconds: expect.any(Number),
        outputCharacters: FILE_TEXT.length,
        sourceCount: 1,
        metadata: { truncated: false },
      },
    ]);
    const usage = events.find((event) => event.type === 'usage');
    expect(usage?.type === 'usage' && usage.usage).toEqual(trace.usage);
    expect(trace).not.toHaveProperty('error');
  });

  it('marks a classic assistant’s file as [context: N chars] in the trace', async () => {
    const traces: PipelineTrace[] = [];
    const snapshot = assistant(
      { connector: 'bypass', llm: 'simple-bypass', rag_processor: 'single_file_rag', file_path: FILE_PATH, verbose: true },
      '{context}|{user_input}',
    );
    await collect(
      runAssistant(
        { messages: [userTurn(USER_TEXT)], parameters: {} },
        pipelineContext(snapshot, { onTrace: (trace) => traces.push(trace) }),
      ),
    );
    expect(traces[0]?.prompt.at(-1)?.content).toBe('\n\n[context: 1,360 chars]\n\n|\n\n[user: 40 chars]\n\n');
  });

  it('leaves the prompt out of the trace of an assistant that is not verbose, whose trace is never kept', async () => {
    const traces: PipelineTrace[] = [];
    const snapshot = assistant(
      { connector: 'bypass', llm: 'simple-bypass', rag_processor: 'single_file_rag', file_path: FILE_PATH },
      '{context}|{user_input}',
    );
    await collect(
      runAssistant(
        { messages: [userTurn(USER_TEXT)], parameters: {} },
        pipelineContext(snapshot, { onTrace: (trace) => traces.push(trace) }),
      ),
    );
    expect(traces[0]?.prompt).toEqual([]);
    expect(traces[0]?.connector).toBe('bypass');
    expect(traces[0]?.promptProcessor).toBe('simple_augment');
    expect(JSON.stringify(traces[0])).not.toContain('canary');
  });
});

describe('runAssistant misconfiguration', () => {
  it('fails with assistant_misconfigured for a prompt processor that is not installed', async () => {
    const snapshot = assistant({ connector: 'bypass', llm: 'simple-bypass', prompt_processor: 'no_such_processor' });
    const error = await runError(() => collect(runAssistant({ messages: [userTurn('q')], parameters: {} }, pipelineContext(snapshot))));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'assistant_misconfigured', status: 400 });
    expect((error as AppError).message).toContain('no_such_processor');
  });

  it('fails with assistant_misconfigured for a connector that is not installed', async () => {
    const snapshot = assistant({ connector: 'no_such_connector', llm: 'x' });
    const error = await runError(() => collect(runAssistant({ messages: [userTurn('q')], parameters: {} }, pipelineContext(snapshot))));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'assistant_misconfigured' });
    expect((error as AppError).message).toContain('no_such_connector');
  });
});

describe('runAssistant with the bypass models', () => {
  const conversation: ChatMessage[] = [
    userTurn('first question'),
    { role: 'assistant', content: 'first answer' },
    userTurn('second question'),
  ];

  it('simple-bypass answers with the last message', async () => {
    const snapshot = assistant({ connector: 'bypass', llm: 'simple-bypass' });
    const events = await collect(runAssistant({ messages: conversation, parameters: {} }, pipelineContext(snapshot)));
    expect(answerText(events)).toBe('second question');
  });

  it('full-conversation-bypass answers with the whole conversation the model would get', async () => {
    const snapshot = assistant({ connector: 'bypass', llm: 'full-conversation-bypass' });
    const events = await collect(runAssistant({ messages: conversation, parameters: {} }, pipelineContext(snapshot)));
    expect(answerText(events)).toBe(`system: ${SYSTEM_PROMPT}\n\nuser: first question\n\nassistant: first answer\n\nuser: second question`);
  });

  it('debug-bypass answers with the model, messages and parameters', async () => {
    const snapshot = assistant({ connector: 'bypass', llm: 'debug-bypass' }, '', '');
    const events = await collect(runAssistant({ messages: [userTurn('q')], parameters: { temperature: 0.2 } }, pipelineContext(snapshot)));
    expect(JSON.parse(answerText(events))).toEqual({
      model: 'debug-bypass',
      messages: [{ role: 'user', content: 'q' }],
      parameters: { temperature: 0.2 },
    });
  });

  it('fails with an AppError for an unknown bypass model and records its code in the trace', async () => {
    const traces: PipelineTrace[] = [];
    const snapshot = assistant({ connector: 'bypass', llm: 'no-such-bypass' });
    const error = await runError(() =>
      collect(
        runAssistant({ messages: [userTurn('q')], parameters: {} }, pipelineContext(snapshot, { onTrace: (trace) => traces.push(trace) })),
      ),
    );
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'assistant_misconfigured' });
    expect((error as AppError).message).toContain('no-such-bypass');
    expect(traces).toHaveLength(1);
    expect(traces[0]?.error).toBe('assistant_misconfigured');
  });
});
