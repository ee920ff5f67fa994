// Proves the tool loop's details that the main suite (tool-loop.test.ts) leaves open, against a scripted connector: identical calls are recognised through nested key order and nothing else; every malformed argument shape is refused with its kind in the trace; trace keys are only declared ones, bounded; unavailable and unknown functions are told apart; results at exactly the limit are not marked; nested statuses, sources, usage, reasoning and text-parser events pass through; the conversation goes on with the right messages; an abort during a call ends the loop.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../errors/app-error.js';
import { serverPost } from '../../outbound/outbound-post.js';
import { serverFetch } from '../upstream/outbound-fetch.js';
import { buildToolContext } from '../../../test/support/tool-context.js';
import type { ConnectorDefinition, ConnectorEvent, ConnectorRequest } from '../plugin-contract/connector-definition.js';
import type { PipelineEvent, StatusEvent, Usage } from '../conversation/events.js';
import type { FunctionToolRun, SkippedFunctionTool } from './function-tools.js';
import { defineTool, type ToolDefinition } from '../plugin-contract/tool-definition.js';
import type { TextParserEvent } from '../../text-tool-calls/index.js';
import { UNKNOWN_FUNCTION } from './tool-call-runner.js';
import { runToolLoop, type TextCallParser, type ToolLoopLimits, type ToolLoopOutcome } from './tool-loop.js';
import { drainGenerator } from '../../../test/support/drain-generator.js';

type Script = (request: ConnectorRequest, round: number) => ConnectorEvent[];

const answer = (text: string): ConnectorEvent[] => [
  { type: 'text-delta', text },
  { type: 'finish', finishReason: 'stop' },
];
const call = (name: string, argumentsJson: string, id = `id_${name}_${Math.random()}`): ConnectorEvent => ({
  type: 'tool-call',
  call: { id, name, argumentsJson },
});
const calling = (...events: ConnectorEvent[]): ConnectorEvent[] => [...events, { type: 'finish', finishReason: 'tool_calls' }];

/** Every call the tools below received, with its arguments. */
const received: Array<Record<string, unknown>> = [];

/** Accepts any object; declares a few keys, one of them 70 characters long, and an unknown schema keyword. */
const LONG_KEY = `k${'e'.repeat(69)}`;
const echo = defineTool({
  name: 'echo_tool',
  displayName: 'Echo',
  description: 'test',
  category: 'test',
  version: '1',
  configSchema: { type: 'object' },
  function: {
    describe: () => ({ name: 'echo', description: 'Echoes.' }),
    parameters: {
      type: 'object',
      minProperties: 1,
      'x-display': 'free form',
      properties: {
        word: { type: 'string' },
        [LONG_KEY]: { type: 'string' },
        ...Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`p${index}`, { type: 'number' }])),
      },
    },
    async call(argumentsFromModel, context) {
      received.push(argumentsFromModel);
      if (argumentsFromModel.word === 'own-error') throw new AppError('not_found', 'Nothing there.');
      if (argumentsFromModel.word === 'crash') throw new Error('boom');
      if (argumentsFromModel.word === 'nested')
        context.callStatus?.emit({ id: `${context.callStatus.id}.1`, tool: 'echo_tool', state: 'running', message: 'nested step' });
      if (argumentsFromModel.word === 'wait') await new Promise((resolve) => context.signal.addEventListener('abort', resolve));
      if (argumentsFromModel.word === 'sourced') return { content: 'sourced', sources: [{ title: 'a source' }] };
      if (argumentsFromModel.word === 'ten') return { content: '0123456789' };
      return { content: 'ok' };
    },
  },
});

/** Declares no properties at all. */
const bare = defineTool({
  name: 'bare_tool',
  displayName: 'Bare',
  description: 'test',
  category: 'test',
  version: '1',
  configSchema: { type: 'object' },
  function: {
    describe: () => ({ name: 'bare', description: 'No declared keys.' }),
    parameters: { type: 'object' },
    async call() {
      return { content: 'bare ok' };
    },
  },
});

async function functionRun(definition: ToolDefinition): Promise<FunctionToolRun> {
  const description = await definition.function!.describe({}, buildToolContext());
  return {
    functionName: description.name,
    toolName: definition.name,
    definition: definition as FunctionToolRun['definition'],
    config: {},
    specification: { name: description.name, description: description.description, parameters: definition.function!.parameters },
    statusLabel: `calling ${description.name}`,
  };
}

const LIMITS: ToolLoopLimits = {
  iterations: 3,
  callTimeoutMilliseconds: 2_000,
  totalMilliseconds: 10_000,
  identicalCallsMaximum: 1,
  resultCharactersMaximum: 10,
};

interface RunOptions {
  limits?: Partial<ToolLoopLimits>;
  unavailable?: SkippedFunctionTool[];
  signal?: AbortSignal;
  createTextParser?: () => TextCallParser;
  usageReceived?: (usage: Usage) => void;
}

async function run(script: Script, options: RunOptions = {}) {
  const requests: ConnectorRequest[] = [];
  const connector: ConnectorDefinition = {
    name: 'scripted',
    description: 'test',
    models: () => [],
    async *complete(request) {
      requests.push(structuredClone({ ...request, signal: undefined, provider: undefined }) as unknown as ConnectorRequest);
      for (const event of script(request, requests.length)) yield event;
    },
  };
  let statusCount = 0;
  const events: PipelineEvent[] = [];
  const started = performance.now();
  const loop = runToolLoop({
    connector,
    model: 'test-model',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
    ],
    parameters: {},
    provider: { fetch: serverFetch, post: serverPost(1_048_576) },
    signal: options.signal ?? new AbortController().signal,
    upstreamTimeoutMilliseconds: 5_000,
    functions: await Promise.all([echo, bare].map(functionRun)),
    ...(options.unavailable !== undefined && { unavailable: options.unavailable }),
    toolContext: buildToolContext(),
    limits: { ...LIMITS, ...options.limits },
    ...(options.createTextParser !== undefined && { createTextParser: options.createTextParser }),
    ...(options.usageReceived !== undefined && { usageReceived: options.usageReceived }),
    nextStatusId: () => `status-${++statusCount}`,
  });
  const outcome: ToolLoopOutcome = await drainGenerator(loop, events);
  const elapsedMilliseconds = performance.now() - started;
  const statuses = events
    .filter((event): event is { type: 'status'; status: StatusEvent } => event.type === 'status')
    .map((event) => event.status);
  const toolMessages = requests
    .at(-1)!
    .messages.filter((message) => message.role === 'tool')
    .map((message) => message.content as string);
  return { outcome, requests, events, statuses, toolMessages, elapsedMilliseconds };
}

describe('identical calls', () => {
  it.each([
    ['nested keys in another order', '{"word":"a","p1":1,"p2":2,"p3":3}', '{"p3":3,"p1":1,"word":"a","p2":2}'],
    [
      'keys in another order inside arrays and objects',
      '{"word":"a","p1":1,"nested":{"z":[{"b":1,"a":2,"c":3}],"y":null}}',
      '{"nested":{"y":null,"z":[{"c":3,"a":2,"b":1}]},"p1":1,"word":"a"}',
    ],
  ])('counts calls with %s as the same call', async (_description, first, second) => {
    const result = await run((_, round) => (round === 1 ? calling(call('echo', first), call('echo', second)) : answer('done')));
    expect(result.toolMessages).toEqual([
      'ok',
      'Error: refused: this exact call (same function, same arguments) already ran 1 time in this request; use its earlier result',
    ]);
    expect(result.outcome.calls[1]!.error).toBe('refused: identical call limit');
  });

  it.each([
    ['different numbers', '{"p1":1}', '{"p1":2}'],
    ['arrays whose joined digits agree', '{"word":"x","n":[1,23]}', '{"word":"x","n":[12,3]}'],
    ['an array and an object with index keys', '{"word":"x","n":[1,2]}', '{"word":"x","n":{"0":1,"1":2}}'],
    [
      'values that differ only in an object’s second entry',
      '{"word":"x","n":{"a":"1","b":"2"}}',
      '{"word":"x","n":{"a":"1,\\"b\\":\\"2"}}',
    ],
    ['arrays in another order', '{"word":"x","n":[1,2]}', '{"word":"x","n":[2,1]}'],
  ])('runs calls with %s as different calls', async (_description, first, second) => {
    received.length = 0;
    const result = await run((_, round) => (round === 1 ? calling(call('echo', first), call('echo', second)) : answer('done')));
    expect(result.toolMessages).toEqual(['ok', 'ok']);
    expect(received).toHaveLength(2);
  });

  it('counts per function: the same arguments to two functions are two calls, three distinct calls all run', async () => {
    const result = await run((_, round) =>
      round === 1 ? calling(call('echo', '{"word":"a"}'), call('bare', '{"word":"a"}'), call('echo', '{"word":"b"}')) : answer('done'),
    );
    expect(result.toolMessages).toEqual(['ok', 'bare ok', 'ok']);
  });

  it('says "times" when the limit is more than one', async () => {
    const result = await run((_, round) => (round <= 3 ? calling(call('echo', '{"word":"same"}')) : answer('done')), {
      limits: { identicalCallsMaximum: 2 },
    });
    expect(result.toolMessages.at(-1)).toBe(
      'Error: refused: this exact call (same function, same arguments) already ran 2 times in this request; use its earlier result',
    );
  });
});

describe('arguments the loop cannot use', () => {
  it.each([
    ['null', 'null'],
    ['a string', '"word"'],
    ['a number', '42'],
    ['an array', '[1]'],
  ])('refuses %s with "expected a JSON object" and records the kind', async (_description, argumentsJson) => {
    const result = await run((_, round) => (round === 1 ? calling(call('echo', argumentsJson)) : answer('done')));
    expect(result.toolMessages).toEqual(['Error: invalid arguments: expected a JSON object']);
    expect(result.outcome.calls[0]!.error).toBe('invalid arguments: not a JSON object');
  });

  it('names broken JSON and schema mismatches by kind in the trace, and a problem of the whole object as "(arguments)" to the model', async () => {
    const result = await run((_, round) =>
      round === 1 ? calling(call('echo', '{"word":'), call('echo', '{}'), call('echo', '{"word":1}')) : answer('done'),
    );
    expect(result.outcome.calls.map((step) => step.error)).toEqual([
      'invalid arguments: not valid JSON',
      'invalid arguments: they do not match the schema',
      'invalid arguments: they do not match the schema',
    ]);
    expect(result.toolMessages[1]).toBe('Error: invalid arguments: "(arguments)" must NOT have fewer than 1 properties');
    expect(result.toolMessages[2]).toBe('Error: invalid arguments: "word" must be string');
  });

  it('lists every schema problem of one call, separated by semicolons', async () => {
    const result = await run((_, round) => (round === 1 ? calling(call('echo', '{"word":1,"p1":"x"}')) : answer('done')));
    expect(result.toolMessages).toEqual(['Error: invalid arguments: "word" must be string; "p1" must be number']);
  });

  it('accepts a schema that carries a keyword Ajv does not know (plugins annotate their schemas)', async () => {
    const result = await run((_, round) => (round === 1 ? calling(call('echo', '{"word":"fine"}')) : answer('done')));
    expect(result.toolMessages).toEqual(['ok']);
  });
});

describe('what the trace keeps of a call', () => {
  it('keeps declared keys only, sorted, each cut to 64 characters, at most 32, and counts the rest', async () => {
    const declared = Object.fromEntries(Array.from({ length: 40 }, (_, index) => [`p${index}`, index]));
    const argumentsObject = { ...declared, word: 'w', [LONG_KEY]: 'v', undeclared_a: 1, undeclared_b: 2 };
    const result = await run((_, round) => (round === 1 ? calling(call('echo', JSON.stringify(argumentsObject))) : answer('done')));
    const step = result.outcome.calls[0]!;
    expect(step.argumentKeys).toHaveLength(32);
    expect(step.argumentKeys).toEqual(
      [LONG_KEY.slice(0, 64), ...Object.keys(declared).sort()]
        .sort()
        .slice(0, 32)
        .map((key) => key.slice(0, 64)),
    );
    expect(step.argumentKeys).toContain(LONG_KEY.slice(0, 64));
    expect(step.otherArgumentKeys).toBe(Object.keys(argumentsObject).length - 32);
  });

  it('keeps no key of a function whose schema declares none, and counts them', async () => {
    const result = await run((_, round) => (round === 1 ? calling(call('bare', '{"learner words":1,"more":2}')) : answer('done')));
    expect(result.outcome.calls[0]).toMatchObject({ function: 'bare', tool: 'bare_tool', argumentKeys: [], otherArgumentKeys: 2 });
    expect(JSON.stringify(result.outcome.calls)).not.toContain('learner words');
  });

  it('names failures by kind: our own error by code, a crash as "failed", a timeout by its limit', async () => {
    const result = await run(
      (_, round) =>
        round === 1
          ? calling(call('echo', '{"word":"own-error"}'), call('echo', '{"word":"crash"}'), call('echo', '{"word":"wait"}'))
          : answer('done'),
      {
        limits: { callTimeoutMilliseconds: 50 },
      },
    );
    expect(result.outcome.calls.map((step) => step.error)).toEqual(['failed (not_found)', 'failed', 'timed out after 50 ms']);
    expect(result.toolMessages).toEqual(['Error: Nothing there.', 'Error: failed (Error)', 'Error: timed out after 50 ms']);
  });

  it('records a duration no longer than the whole run, and the result size and source count', async () => {
    const result = await run((_, round) =>
      round === 1 ? calling(call('echo', '{"word":"sourced"}'), call('echo', '{"word":"plain"}')) : answer('done'),
    );
    const [sourced, plain] = result.outcome.calls;
    expect(sourced).toMatchObject({ resultCharacters: 'sourced'.length, sourceCount: 1 });
    expect(plain).toMatchObject({ resultCharacters: 2, sourceCount: 0 });
    for (const step of result.outcome.calls) {
      expect(step.durationMilliseconds).toBeGreaterThanOrEqual(0);
      expect(step.durationMilliseconds).toBeLessThanOrEqual(Math.ceil(result.elapsedMilliseconds));
    }
    expect(result.events.filter((event) => event.type === 'sources')).toEqual([
      { type: 'sources', sources: [{ title: 'a source', tool: 'echo_tool', function: 'echo' }] },
    ]);
  });
});

describe('functions the model may not call', () => {
  it('tells a configured but unavailable function from an unknown one, in the result, the trace and the status', async () => {
    const unavailable: SkippedFunctionTool[] = [
      { toolName: 'moodle_courses', functionName: 'list_courses', reason: 'Moodle is not configured for this organization' },
    ];
    const result = await run(
      (_, round) => (round === 1 ? calling(call('list_courses', '{}'), call('made_up_by_the_learner', '{}')) : answer('done')),
      { unavailable },
    );
    expect(result.toolMessages).toEqual([
      'Error: "list_courses" is not available: Moodle is not configured for this organization',
      'Error: unknown tool "made_up_by_the_learner"; the available tools are: echo, bare',
    ]);
    expect(result.outcome.calls.map((step) => [step.function, step.error])).toEqual([
      ['list_courses', 'not available'],
      [UNKNOWN_FUNCTION, 'unknown function'],
    ]);
    expect(result.statuses.filter((status) => status.state === 'running').map((status) => [status.tool, status.message])).toEqual([
      [UNKNOWN_FUNCTION, 'calling an unknown function'],
      [UNKNOWN_FUNCTION, 'calling an unknown function'],
    ]);
  });

  it('names a known function’s tool in every status, nested ones included', async () => {
    const result = await run((_, round) => (round === 1 ? calling(call('echo', '{"word":"nested"}')) : answer('done')));
    expect(result.statuses.map((status) => [status.id, status.tool, status.state, status.message])).toEqual([
      ['status-1', 'echo_tool', 'running', 'calling echo'],
      ['status-1.1', 'echo_tool', 'running', 'nested step'],
      ['status-1', 'echo_tool', 'done', 'calling echo'],
    ]);
  });
});

describe('results', () => {
  it('leaves a result of exactly the limit unmarked', async () => {
    const result = await run((_, round) => (round === 1 ? calling(call('echo', '{"word":"ten"}')) : answer('done')));
    expect(result.toolMessages).toEqual(['0123456789']);
  });
});

describe('the conversation', () => {
  it('sends the input messages first, then the assistant turn with content null when the model only called, then the results', async () => {
    const result = await run((_, round) => (round === 1 ? calling(call('echo', '{"word":"a"}', 'call_1')) : answer('done')));
    expect(result.requests[0]!.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hello' },
    ]);
    expect(result.requests[1]!.messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"word":"a"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
    ]);
  });

  it('keeps the words before a call as the assistant turn’s content', async () => {
    const result = await run((_, round) =>
      round === 1
        ? calling({ type: 'text-delta', text: 'Let me ' }, { type: 'text-delta', text: 'look.' }, call('echo', '{"word":"a"}'))
        : answer('done'),
    );
    expect(result.requests[1]!.messages[2]).toMatchObject({ role: 'assistant', content: 'Let me look.' });
  });

  it('passes on the finish reason of the answer, and reasoning as it comes', async () => {
    const result = await run(() => [
      { type: 'reasoning-delta', text: 'thinking' },
      { type: 'text-delta', text: 'cut' },
      { type: 'finish', finishReason: 'length' },
    ]);
    expect(result.outcome.finishReason).toBe('length');
    expect(result.events).toEqual([
      { type: 'reasoning-delta', text: 'thinking' },
      { type: 'text-delta', text: 'cut' },
    ]);
  });

  it('adds up the usage of every round and reports each as it arrives, with or without a listener', async () => {
    const usage = (total: number): ConnectorEvent => ({
      type: 'usage',
      usage: { prompt_tokens: total - 1, completion_tokens: 1, total_tokens: total },
    });
    const script: Script = (_, round) =>
      round === 1 ? [usage(10), ...calling(call('echo', '{"word":"a"}'))] : [usage(20), ...answer('done')];
    const heard: Usage[] = [];
    const listened = await run(script, { usageReceived: (reported) => heard.push(reported) });
    expect(listened.outcome.usage).toEqual({ prompt_tokens: 28, completion_tokens: 2, total_tokens: 30 });
    expect(heard.map((reported) => reported.total_tokens)).toEqual([10, 20]);
    const unheard = await run(script);
    expect(unheard.outcome.usage.total_tokens).toBe(30);
  });
});

describe('calls written as text', () => {
  /** Reads "CALL name args" as a call and "THINK x" as reasoning; everything else is text. */
  const textParser = (): TextCallParser => ({
    push(delta: string): TextParserEvent[] {
      if (delta.startsWith('CALL ')) {
        const [, name, argumentsJson] = delta.split(' ');
        return [{ type: 'tool-call', name: name!, argumentsJson: argumentsJson!, format: 'hermes' }];
      }
      if (delta.startsWith('THINK ')) return [{ type: 'reasoning', text: delta.slice(6) }];
      return [{ type: 'text', text: delta }];
    },
    end: () => [],
  });

  it('runs a call the parser reads, with an id of its own, and keeps the parsed text and reasoning', async () => {
    const result = await run(
      (_, round) =>
        round === 1
          ? [
              { type: 'text-delta', text: 'THINK hmm' },
              { type: 'text-delta', text: 'Checking. ' },
              { type: 'text-delta', text: 'CALL echo {"word":"a"}' },
              { type: 'finish', finishReason: 'stop' },
            ]
          : answer('done'),
      { createTextParser: textParser },
    );
    expect(result.events.filter((event) => event.type !== 'status')).toEqual([
      { type: 'reasoning-delta', text: 'hmm' },
      { type: 'text-delta', text: 'Checking. ' },
      { type: 'text-delta', text: 'done' },
    ]);
    const assistantTurn = result.requests[1]!.messages[2]!;
    expect(assistantTurn).toMatchObject({ role: 'assistant', content: 'Checking. ' });
    expect((assistantTurn.tool_calls![0] as { id: string }).id).toMatch(/^call_[0-9a-f-]{36}$/);
    expect(result.toolMessages).toEqual(['ok']);
  });
});

describe('aborting', () => {
  it('ends the loop with the abort when the client leaves during a call, and asks the model nothing more', async () => {
    const controller = new AbortController();
    const attempt = run(
      (_, round) => {
        if (round === 1) setTimeout(() => controller.abort(new Error('client left')), 20);
        return round === 1 ? calling(call('echo', '{"word":"wait"}')) : answer('should not be asked');
      },
      { signal: controller.signal, limits: { callTimeoutMilliseconds: 5_000 } },
    );
    await expect(attempt).rejects.toThrow('client left');
  });
});
