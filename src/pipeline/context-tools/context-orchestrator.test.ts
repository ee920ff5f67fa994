// Proves runContextTools: tools run concurrently (shown with a latch, not a clock), outputs join by placeholder in configured order, failures, timeouts, unknown tools and config errors stay contained with safe reasons, and statuses, steps and sources are well formed.
import { describe, expect, it } from 'vitest';
import { buildToolContext } from '../../../test/support/tool-context.js';
import { AppError } from '../../errors/app-error.js';
import type { AssistantSnapshot } from '../assistant-metadata/assistant-snapshot.js';
import {
  MERGE_STATUS_MESSAGE,
  MERGE_STATUS_TOOL,
  runContextTools,
  type ContextToolRun,
  type OrchestratorOptions,
} from './context-orchestrator.js';
import type { StatusEvent } from '../conversation/events.js';
import { defineTool, type ToolConfig, type ToolContext, type ToolDefinition, type ToolOutput } from '../plugin-contract/tool-definition.js';

const CANARY_SECRET = 'sk-canary-123';

const assistant: AssistantSnapshot = {
  id: 1,
  name: 'Orchestrator test assistant',
  ownerId: 1,
  organizationId: 1,
  systemPrompt: '',
  promptTemplate: '',
  metadata: { _format_version: 2 },
  ragCollections: [],
  ragTopK: 3,
};

function toolContext(signal: AbortSignal = new AbortController().signal): ToolContext {
  return buildToolContext({ assistant, signal });
}

interface Harness {
  statuses: StatusEvent[];
  allStatuses: StatusEvent[];
  options: OrchestratorOptions;
}

/** `statuses` holds the tools' own statuses; `allStatuses` also the orchestrator's merge step. */
function harness(timeoutMilliseconds = 2_000, onStatus: (status: StatusEvent) => void = () => {}): Harness {
  const statuses: StatusEvent[] = [];
  const allStatuses: StatusEvent[] = [];
  let count = 0;
  return {
    statuses,
    allStatuses,
    options: {
      timeoutMilliseconds,
      emitStatus: (status) => {
        allStatuses.push(status);
        if (status.tool !== MERGE_STATUS_TOOL) statuses.push(status);
        onStatus(status);
      },
      nextStatusId: () => `status-${++count}`,
    },
  };
}

/** A context tool whose provide is the given function; its status names it so messages are recognisable. */
function contextTool(
  name: string,
  provide: (context: ToolContext, config: ToolConfig) => Promise<ToolOutput>,
  placeholder = 'context',
): ToolDefinition {
  return defineTool({
    name,
    displayName: name,
    description: `test tool ${name}`,
    category: 'test',
    version: '1.0',
    configSchema: { type: 'object' },
    placeholder,
    provide,
    status: () => `working on ${name}`,
  });
}

function planned(definition: ToolDefinition, extra: Partial<ContextToolRun> = {}): ContextToolRun {
  return { definition, toolName: definition.name, config: {}, placeholder: definition.placeholder ?? definition.name, ...extra };
}

function statusesOf(statuses: readonly StatusEvent[], tool: string): StatusEvent[] {
  return statuses.filter((status) => status.tool === tool);
}

/** Opens only when `count` parties have arrived; everyone who arrives waits for it. */
function latch(count: number): { arrive(): Promise<void> } {
  let arrived = 0;
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    arrive() {
      arrived += 1;
      if (arrived === count) open();
      return opened;
    },
  };
}

describe('runContextTools concurrency', () => {
  it('runs all tools at once: three tools that each wait until all three have started all succeed', async () => {
    const gate = latch(3);
    const waitForAll = (content: string) => async (): Promise<ToolOutput> => {
      await gate.arrive();
      return { content };
    };
    const { statuses, options } = harness(2_000);
    const result = await runContextTools(
      [
        planned(contextTool('alpha', waitForAll('A'), 'a')),
        planned(contextTool('beta', waitForAll('B'), 'b')),
        planned(contextTool('gamma', waitForAll('C'), 'c')),
      ],
      toolContext(),
      options,
    );
    expect(result.steps.map((step) => step.error)).toEqual([undefined, undefined, undefined]);
    expect(result.values).toEqual({ a: 'A', b: 'B', c: 'C' });
    expect(
      statuses
        .filter((status) => status.state === 'done')
        .map((status) => status.tool)
        .sort(),
    ).toEqual(['alpha', 'beta', 'gamma']);
  });
});

describe('runContextTools merging by placeholder', () => {
  it('joins two tools writing the same placeholder in configured order even when the second finishes first', async () => {
    let secondReportedDone!: () => void;
    const secondDone = new Promise<void>((resolve) => (secondReportedDone = resolve));
    const { statuses, options } = harness(2_000, (status) => {
      if (status.tool === 'second' && status.state === 'done') secondReportedDone();
    });
    const first = contextTool('first', async () => {
      await secondDone;
      return { content: 'FIRST OUTPUT' };
    });
    const second = contextTool('second', async () => ({ content: 'SECOND OUTPUT' }));

    const result = await runContextTools([planned(first), planned(second)], toolContext(), options);

    const doneOrder = statuses.filter((status) => status.state === 'done').map((status) => status.tool);
    expect(doneOrder).toEqual(['second', 'first']);
    expect(result.values.context).toBe('FIRST OUTPUT\n\nSECOND OUTPUT');
    expect(result.steps.map((step) => step.tool)).toEqual(['first', 'second']);
  });

  it('adds nothing to a shared placeholder for a tool that produced empty content', async () => {
    const { options } = harness();
    const result = await runContextTools(
      [planned(contextTool('empty', async () => ({ content: '' }))), planned(contextTool('full', async () => ({ content: 'only this' })))],
      toolContext(),
      options,
    );
    expect(result.values.context).toBe('only this');
  });

  it('routes output to the placeholder the run names, which may differ from the tool default', async () => {
    const { options } = harness();
    const tool = contextTool('reader', async () => ({ content: 'text', sources: [{ title: 'doc' }] }), 'file');
    const result = await runContextTools([planned(tool, { placeholder: 'context' })], toolContext(), options);
    expect(result.values).toEqual({ context: 'text' });
    expect(result.sources).toEqual([{ title: 'doc', tool: 'reader', placeholder: 'context' }]);
    expect(result.steps[0]?.placeholder).toBe('context');
  });

  it('returns empty results for no tools without emitting any status', async () => {
    const { statuses, options } = harness();
    expect(await runContextTools([], toolContext(), options)).toEqual({ values: {}, sources: [], steps: [] });
    expect(statuses).toEqual([]);
  });
});

describe('runContextTools failures', () => {
  it('contains a throwing tool: empty placeholder, running then error status, error in its step, the others still succeed', async () => {
    const { statuses, options } = harness();
    const broken = contextTool(
      'broken',
      async () => {
        throw new Error(`upstream refused key ${CANARY_SECRET}`);
      },
      'broken_slot',
    );
    const healthy = contextTool('healthy', async () => ({ content: 'fine', sources: [{ title: 'ok' }] }));

    const result = await runContextTools([planned(broken), planned(healthy)], toolContext(), options);

    expect(result.values.broken_slot).toBe('');
    expect(result.values.context).toBe('fine');
    expect(statusesOf(statuses, 'broken').map((status) => status.state)).toEqual(['running', 'error']);
    expect(statusesOf(statuses, 'broken')[1]?.message).toBe('working on broken: failed (Error)');
    expect(statusesOf(statuses, 'healthy').map((status) => status.state)).toEqual(['running', 'done']);
    const brokenStep = result.steps.find((step) => step.tool === 'broken');
    expect(brokenStep).toMatchObject({ placeholder: 'broken_slot', outputCharacters: 0, sourceCount: 0, error: 'failed (Error)' });
    const healthyStep = result.steps.find((step) => step.tool === 'healthy');
    expect(healthyStep).not.toHaveProperty('error');
    expect(healthyStep).toMatchObject({ outputCharacters: 4, sourceCount: 1 });
  });

  it('never lets the message of a non-AppError (here holding a secret) reach statuses, steps or values', async () => {
    const { statuses, options } = harness();
    const leaky = contextTool('leaky', async () => {
      throw new TypeError(`Incorrect API key provided: ${CANARY_SECRET}`);
    });
    const result = await runContextTools([planned(leaky)], toolContext(), options);
    expect(JSON.stringify(statuses)).not.toContain(CANARY_SECRET);
    expect(JSON.stringify(result)).not.toContain(CANARY_SECRET);
    expect(result.steps[0]?.error).toBe('failed (TypeError)');
  });

  it('reports only "failed" for something thrown that is not an Error at all', async () => {
    const { statuses, options } = harness();
    const thrower = contextTool('thrower', async () => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- a plugin may throw anything; that is the case proved here
      throw CANARY_SECRET;
    });
    const result = await runContextTools([planned(thrower)], toolContext(), options);
    expect(result.steps[0]?.error).toBe('failed');
    expect(statuses.at(-1)?.message).toBe('working on thrower: failed');
    expect(JSON.stringify({ statuses, result })).not.toContain(CANARY_SECRET);
  });

  it('uses the message of an AppError, which is safe by contract', async () => {
    const { statuses, options } = harness();
    const missing = contextTool('missing', async () => {
      throw new AppError('not_found', 'file notes.md does not exist');
    });
    const result = await runContextTools([planned(missing)], toolContext(), options);
    expect(result.steps[0]?.error).toBe('file notes.md does not exist');
    expect(statuses.at(-1)).toMatchObject({ tool: 'missing', state: 'error', message: 'working on missing: file notes.md does not exist' });
  });

  it('cuts off a tool that never resolves at timeoutMilliseconds and aborts the signal it was given', async () => {
    const { statuses, options } = harness(50);
    let signalGiven: AbortSignal | undefined;
    const stuck = contextTool('stuck', (context) => {
      signalGiven = context.signal;
      return new Promise<never>(() => {});
    });
    const quick = contextTool('quick', async () => ({ content: 'quick answer' }), 'other');

    const result = await runContextTools([planned(stuck), planned(quick)], toolContext(), options);

    expect(statusesOf(statuses, 'stuck').map((status) => status.state)).toEqual(['running', 'error']);
    expect(statusesOf(statuses, 'stuck')[1]?.message).toBe('working on stuck: timed out after 50 ms');
    expect(result.steps.find((step) => step.tool === 'stuck')?.error).toBe('timed out after 50 ms');
    expect(result.values).toEqual({ context: '', other: 'quick answer' });
    expect(signalGiven?.aborted).toBe(true);
  });

  it('ends a tool that ignores its signal when the client goes away mid-run, without waiting for the tool timeout', async () => {
    const client = new AbortController();
    const { statuses, options } = harness(600_000);
    const ignoring = contextTool('ignoring', () => {
      queueMicrotask(() => client.abort());
      return new Promise<never>(() => {});
    });
    const result = await runContextTools([planned(ignoring)], toolContext(client.signal), options);
    expect(statuses.map((status) => status.state)).toEqual(['running', 'error']);
    expect(result.steps[0]?.error).toBeDefined();
    expect(result.steps[0]?.error).not.toContain('timed out');
  });

  // Known bug (reported): with an already-aborted client signal the 'abort' listener never fires, so
  // neither the client nor the 50 ms tool timeout ends the tool and the run never settles. The 5 s
  // test bound only keeps a failure quick; nothing here measures time.
  it('ends a tool that ignores its signal when the client had already gone before the tools started', { timeout: 5_000 }, async () => {
    const client = new AbortController();
    client.abort();
    const { statuses, options } = harness(50);
    const ignoring = contextTool('ignoring', () => new Promise<never>(() => {}));
    const result = await runContextTools([planned(ignoring)], toolContext(client.signal), options);
    expect(statuses.map((status) => status.state)).toEqual(['running', 'error']);
    expect(result.steps[0]?.error).toBeDefined();
  });

  // Plugins are plain files (JS ones have no type checks), so a malformed output must be contained like a throw.
  it('contains a tool that resolves without a content string: error status, empty placeholder, the others still succeed', async () => {
    const { statuses, options } = harness();
    const malformed = contextTool('malformed', async () => undefined as unknown as ToolOutput, 'malformed_slot');
    const healthy = contextTool('healthy', async () => ({ content: 'fine' }));
    const result = await runContextTools([planned(malformed), planned(healthy)], toolContext(), options);
    expect(statusesOf(statuses, 'malformed').map((status) => status.state)).toEqual(['running', 'error']);
    expect(result.values).toEqual({ malformed_slot: '', context: 'fine' });
    expect(result.steps.find((step) => step.tool === 'malformed')?.error).toBeDefined();
  });

  it('gives an error status for a tool that is not installed, without running anything', async () => {
    const { statuses, options } = harness();
    const result = await runContextTools(
      [{ definition: undefined, toolName: 'weather', config: {}, placeholder: 'weather' }],
      toolContext(),
      options,
    );
    expect(statuses.map((status) => status.state)).toEqual(['running', 'error']);
    expect(statuses[1]).toMatchObject({ tool: 'weather', state: 'error', message: 'running weather: tool "weather" is not installed' });
    expect(result.values).toEqual({ weather: '' });
    expect(result.steps).toEqual([
      {
        tool: 'weather',
        placeholder: 'weather',
        input: {},
        durationMilliseconds: expect.any(Number),
        outputCharacters: 0,
        sourceCount: 0,
        error: 'tool "weather" is not installed',
      },
    ]);
  });

  it('gives an error status for a run with a configError and never calls provide', async () => {
    const { statuses, options } = harness();
    let calls = 0;
    const tool = contextTool('configured', async () => {
      calls += 1;
      return { content: 'should not appear' };
    });
    const result = await runContextTools(
      [planned(tool, { configError: 'invalid config: must have required property file_path' })],
      toolContext(),
      options,
    );
    expect(calls).toBe(0);
    expect(statuses.at(-1)).toMatchObject({
      state: 'error',
      message: 'working on configured: invalid config: must have required property file_path',
    });
    expect(result.values.context).toBe('');
    expect(result.steps[0]?.error).toBe('invalid config: must have required property file_path');
  });
});

describe('runContextTools statuses, steps and sources', () => {
  it('gives every tool a unique status id shared by its running and its done or error status', async () => {
    const { statuses, options } = harness();
    const runs = [
      planned(contextTool('one', async () => ({ content: '1' }))),
      planned(
        contextTool('two', async () => {
          throw new Error('boom');
        }),
      ),
      planned(contextTool('three', async () => ({ content: '3' }), 'other')),
      { definition: undefined, toolName: 'ghost', config: {}, placeholder: 'ghost' },
    ];
    await runContextTools(runs, toolContext(), options);

    expect(statuses).toHaveLength(8);
    expect(statuses.every((status) => status.tool !== MERGE_STATUS_TOOL)).toBe(true);
    const byId = new Map<string, StatusEvent[]>();
    for (const status of statuses) byId.set(status.id, [...(byId.get(status.id) ?? []), status]);
    expect(byId.size).toBe(4);
    for (const group of byId.values()) {
      expect(group).toHaveLength(2);
      expect(group[0]?.state).toBe('running');
      expect(['done', 'error']).toContain(group[1]?.state);
      expect(group[1]?.tool).toBe(group[0]?.tool);
    }
    expect(new Set(statuses.map((status) => status.tool))).toEqual(new Set(['one', 'two', 'three', 'ghost']));
  });

  it('uses the text of status() as the message of the running and done statuses', async () => {
    const { statuses, options } = harness();
    const search = defineTool({
      name: 'kb_search',
      displayName: 'KB search',
      description: 'test',
      category: 'rag',
      version: '1.0',
      configSchema: { type: 'object' },
      placeholder: 'context',
      status: (config) => `querying knowledge base ${String(config.collection)}`,
      provide: async () => ({ content: 'chunk' }),
    });
    await runContextTools([planned(search, { config: { collection: 'kb-7' } })], toolContext(), options);
    expect(statuses.map((status) => [status.state, status.message])).toEqual([
      ['running', 'querying knowledge base kb-7'],
      ['done', 'querying knowledge base kb-7'],
    ]);
  });

  it('falls back to "running <tool>" when a tool has no status() or its status() throws', async () => {
    const { statuses, options } = harness();
    const plain = defineTool({
      name: 'plain',
      displayName: 'p',
      description: 'p',
      category: 't',
      version: '1',
      configSchema: {},
      placeholder: 'p',
      provide: async () => ({ content: 'x' }),
    });
    const faulty = defineTool({
      name: 'faulty',
      displayName: 'f',
      description: 'f',
      category: 't',
      version: '1',
      configSchema: {},
      placeholder: 'f',
      provide: async () => ({ content: 'y' }),
      status: () => {
        throw new Error(CANARY_SECRET);
      },
    });
    await runContextTools([planned(plain), planned(faulty)], toolContext(), options);
    expect(statusesOf(statuses, 'plain').map((status) => status.message)).toEqual(['running plain', 'running plain']);
    expect(statusesOf(statuses, 'faulty').map((status) => status.message)).toEqual(['running faulty', 'running faulty']);
  });

  it('tags every source with the tool and the placeholder it filled, in configured order', async () => {
    const { options } = harness();
    const knowledgeBase = contextTool('kb', async () => ({
      content: 'kb text',
      sources: [
        { title: 'Chapter 1', url: 'https://example.org/1', similarity: 0.91 },
        { title: 'Chapter 2', url: 'https://example.org/2', similarity: 0.72 },
      ],
    }));
    const rubric = contextTool('rubric', async () => ({ content: 'rubric text', sources: [{ title: 'Essay rubric' }] }), 'rubric');
    const result = await runContextTools([planned(knowledgeBase), planned(rubric)], toolContext(), options);
    expect(result.sources).toEqual([
      { title: 'Chapter 1', url: 'https://example.org/1', similarity: 0.91, tool: 'kb', placeholder: 'context' },
      { title: 'Chapter 2', url: 'https://example.org/2', similarity: 0.72, tool: 'kb', placeholder: 'context' },
      { title: 'Essay rubric', tool: 'rubric', placeholder: 'rubric' },
    ]);
  });

  it('records in each step the traceInput, output size and source count, and passes the run config to provide', async () => {
    const { options } = harness();
    let configSeen: ToolConfig | undefined;
    const tool = defineTool({
      name: 'traced',
      displayName: 't',
      description: 't',
      category: 't',
      version: '1',
      configSchema: { type: 'object' },
      placeholder: 'context',
      traceInput: (config) => ({ collection: config.collection }),
      provide: async (_context, config) => {
        configSeen = config;
        return { content: '12345', sources: [{ title: 'a' }, { title: 'b' }] };
      },
    });
    const result = await runContextTools(
      [planned(tool, { config: { collection: 'kb-1', api_key: CANARY_SECRET } })],
      toolContext(),
      options,
    );
    expect(configSeen).toEqual({ collection: 'kb-1', api_key: CANARY_SECRET });
    expect(result.steps).toEqual([
      {
        tool: 'traced',
        placeholder: 'context',
        input: { collection: 'kb-1' },
        durationMilliseconds: expect.any(Number),
        outputCharacters: 5,
        sourceCount: 2,
      },
    ]);
    expect(JSON.stringify(result.steps)).not.toContain(CANARY_SECRET);
  });
});

describe('runContextTools merge step', () => {
  it('shows "merging tool outputs" as the last step when several tools ran', async () => {
    const { allStatuses, options } = harness();
    await runContextTools(
      [planned(contextTool('one', async () => ({ content: '1' }))), planned(contextTool('two', async () => ({ content: '2' })))],
      toolContext(),
      options,
    );
    expect(allStatuses.slice(-2).map((status) => [status.tool, status.state, status.message])).toEqual([
      [MERGE_STATUS_TOOL, 'running', MERGE_STATUS_MESSAGE],
      [MERGE_STATUS_TOOL, 'done', MERGE_STATUS_MESSAGE],
    ]);
  });

  it('shows no merge step for a single tool', async () => {
    const { allStatuses, options } = harness();
    await runContextTools([planned(contextTool('only', async () => ({ content: 'x' })))], toolContext(), options);
    expect(allStatuses.map((status) => status.tool)).toEqual(['only', 'only']);
  });
});
