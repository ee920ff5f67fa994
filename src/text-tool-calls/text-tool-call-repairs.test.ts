// Proves each repair the engines make on malformed calls, one by one: the malformed call is read as
// the engines read it, whole and in one-character deltas, and the same characters in prose (not right
// after a call, not inside a call's tags) stay exactly as written, so no repair turns prose into a call.
import { describe, expect, it } from 'vitest';
import { TextToolCallParser, type TextParserEvent, type ToolCallFormatSetting } from './index.js';
import type { OfferedTool } from './vocabulary/text-tool-call-types.js';

const TOOLS: readonly OfferedTool[] = [
  {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'float' }, metric: { type: 'bool' }, tags: { type: 'list' } },
    },
  },
  { name: 'get_time', parameters: { type: 'object', properties: {} } },
  { name: 'todo_write', parameters: { type: 'object', properties: { todos: { type: 'array' } } } },
];

interface Parsed {
  text: string;
  calls: Array<{ name: string; arguments: unknown }>;
}

function parse(chunks: readonly string[], format: Exclude<ToolCallFormatSetting, 'native'>): Parsed {
  const parser = new TextToolCallParser({ tools: TOOLS, format });
  const events: TextParserEvent[] = [...chunks.flatMap((chunk) => parser.push(chunk)), ...parser.end()];
  return {
    text: events.flatMap((event) => (event.type === 'text' ? [event.text] : [])).join(''),
    calls: events.flatMap((event) =>
      event.type === 'tool-call' ? [{ name: event.name, arguments: JSON.parse(event.argumentsJson) as unknown }] : [],
    ),
  };
}

/** Whole, and one character at a time: a repair must not depend on where the deltas fall. */
function parseEveryWay(text: string, format: Exclude<ToolCallFormatSetting, 'native'>): Parsed {
  const whole = parse([text], format);
  expect(parse(Array.from(text), format)).toEqual(whole);
  return whole;
}

const WEATHER_PARIS = { name: 'get_weather', arguments: { city: 'Paris' } };

describe.each(['auto', 'named'] as const)('repairs in %s mode', (mode) => {
  const setting = (format: Exclude<ToolCallFormatSetting, 'native' | 'auto'>) => (mode === 'auto' ? 'auto' : format);

  it('drops a stray </tool_call> after a call whose opening tag the model skipped', () => {
    const parsed = parseEveryWay(
      'Checking.\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>',
      setting('xml_function'),
    );
    expect(parsed.calls).toEqual([WEATHER_PARIS]);
    expect(parsed.text).toBe('Checking.\n\n');
  });

  it('drops a stray [/TOOL_CALLS] after Mistral calls', () => {
    const parsed = parseEveryWay('[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[/TOOL_CALLS] Done.', setting('mistral'));
    expect(parsed.calls).toEqual([WEATHER_PARIS]);
    expect(parsed.text).toBe(' Done.');
  });

  it('drops an extra } after a complete call object, and an extra ] after a call list', () => {
    const json = parseEveryWay('{"name": "get_weather", "arguments": {"city": "Paris"}}} Sure.', setting('llama3_json'));
    expect(json.calls).toEqual([WEATHER_PARIS]);
    expect(json.text).toBe(' Sure.');
    const tagged = parseEveryWay('<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}}</tool_call>', setting('hermes'));
    expect(tagged.calls).toEqual([WEATHER_PARIS]);
    expect(tagged.text).toBe('');
    const pythonic = parseEveryWay('[get_weather(city="Paris")]]', setting('pythonic'));
    expect(pythonic.calls).toEqual([WEATHER_PARIS]);
    expect(pythonic.text).toBe('');
  });

  it('reads several call objects inside one <tool_call> pair', () => {
    const parsed = parseEveryWay(
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "get_time", "arguments": {}}</tool_call>',
      setting('hermes'),
    );
    expect(parsed.calls).toEqual([WEATHER_PARIS, { name: 'get_time', arguments: {} }]);
  });

  it('reads a GLM value whose <arg_value> opening is missing', () => {
    const parsed = parseEveryWay('<tool_call>get_weather\n<arg_key>city</arg_key>\nParis</arg_value>\n</tool_call>', setting('glm'));
    expect(parsed.calls).toEqual([WEATHER_PARIS]);
  });

  it('unescapes double-escaped GLM output: literal \\n between tags and \\" inside a JSON value', () => {
    const parsed = parseEveryWay(
      '<tool_call>todo_write\\n<arg_key>todos</arg_key>\\n<arg_value>[{\\"id\\": \\"1\\", \\"task\\": \\"C:\\\\\\\\Users\\"}]</arg_value></tool_call>',
      setting('glm'),
    );
    expect(parsed.calls).toEqual([{ name: 'todo_write', arguments: { todos: [{ id: '1', task: 'C:\\Users' }] } }]);
  });

  it('drops the bare commentary gpt-oss leaves between two Harmony calls', () => {
    const call = (name: string, body: string) =>
      `<|start|>assistant<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${body}<|call|>`;
    const parsed = parseEveryWay(
      `${call('get_weather', '{"city": "Paris"}')}commentary${call('get_time', '{}')}commentary`,
      setting('harmony'),
    );
    expect(parsed.calls).toEqual([WEATHER_PARIS, { name: 'get_time', arguments: {} }]);
    expect(parsed.text).toBe('');
  });

  it('reads a bare Kimi <|tool_call_begin|> with no section tokens around it', () => {
    const parsed = parseEveryWay(
      'Sure. <|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>',
      setting('kimi_k2'),
    );
    expect(parsed.calls).toEqual([WEATHER_PARIS]);
    expect(parsed.text).toBe('Sure. ');
  });

  it("drops DeepSeek's tool-output markers and keeps the words between them", () => {
    const parsed = parseEveryWay('Weather: <｜tool▁output▁begin｜>22°C, sunny<｜tool▁output▁end｜> Enjoy!', setting('deepseek_v31'));
    expect(parsed.calls).toEqual([]);
    expect(parsed.text).toBe('Weather: 22°C, sunny Enjoy!');
  });

  it('coerces loosely written schema types: float, bool and list', () => {
    const parsed = parseEveryWay(
      '<tool_call>\n<function=get_weather>\n<parameter=days>\n2.5\n</parameter>\n<parameter=metric>\nTrue\n</parameter>\n<parameter=tags>\n["a"]\n</parameter>\n</function>\n</tool_call>',
      setting('xml_function'),
    );
    expect(parsed.calls).toEqual([{ name: 'get_weather', arguments: { days: 2.5, metric: true, tags: ['a'] } }]);
  });
});

describe("a value that quotes the call's own tags", () => {
  it('is kept whole in a GLM call: the tags inside <arg_value> are data, not the end of the call', () => {
    const value = 'Wrap each call in <tool_call> and </tool_call>; this is part of the value.';
    const parsed = parseEveryWay(`<tool_call>get_weather<arg_key>city</arg_key><arg_value>${value}</arg_value></tool_call> Done.`, 'auto');
    expect(parsed.calls).toEqual([{ name: 'get_weather', arguments: { city: value } }]);
    expect(parsed.text).toBe(' Done.');
  });
});

describe("Qwen3-Coder's bare <function=…>", () => {
  it('reads no call from a JSON body (Functionary v3.1 writes that), where it would lose the arguments', () => {
    const output = '<function=get_weather>{"city": "Paris"}</function>';
    expect(parseEveryWay(output, 'xml_function')).toEqual({ text: output, calls: [] });
  });
});

describe('the repairs leave prose alone', () => {
  it.each([
    'Close the block with </tool_call> when you are done.',
    'Mistral ends its calls list with [/TOOL_CALLS], see the docs.',
    'The object {"a": {"b": 1}}} has one brace too many, and [1, 2]] one bracket.',
    'In Harmony, commentary is a channel: <|start|>assistant<|channel|>commentary',
    'A GLM value looks like <arg_key>city</arg_key>Paris</arg_value> in the docs.',
    'Escaped JSON such as [{\\"id\\": \\"1\\"}] is common in logs.',
    'commentary</tool_call>}]',
  ])('keeps %j as written', (prose) => {
    for (const format of ['auto', 'hermes', 'xml_function', 'glm', 'mistral', 'harmony', 'llama3_json'] as const) {
      const parsed = parseEveryWay(prose, format);
      expect(parsed.calls).toEqual([]);
      expect(parsed.text).toBe(prose);
    }
  });

  it('keeps a stray closer that follows prose rather than a call', () => {
    const parsed = parseEveryWay(
      '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call> Then I wrote </tool_call> and }.',
      'auto',
    );
    expect(parsed.calls).toEqual([WEATHER_PARIS]);
    expect(parsed.text).toBe(' Then I wrote </tool_call> and }.');
  });
});
